package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.config.Secret;
import io.rubix.spi.config.ClusterKeys;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * The HTTP settings shared by the REST cluster managers ({@code rubix.cluster.rest.*}).
 *
 * @param trustStore the trust store for https URLs; empty: the JVM's default
 */
record RestClientConfig(Duration connectTimeout, Duration requestTimeout, Duration initialWait, Duration refreshInterval,
    Duration backoffMax, Optional<TrustStore> trustStore) {
  RestClientConfig {
    requireNonNull(initialWait, "initialWait is null");
    requireNonNull(connectTimeout, "connectTimeout is null");
    requireNonNull(requestTimeout, "requestTimeout is null");
    requireNonNull(refreshInterval, "refreshInterval is null");
    requireNonNull(backoffMax, "backoffMax is null");
    requireNonNull(trustStore, "trustStore is null");
  }

  /** A trust store file; {@code toString()} hides the password. */
  record TrustStore(Path path, Optional<Secret> password, String type) {
    TrustStore {
      requireNonNull(path, "path is null");
      requireNonNull(password, "password is null");
      requireNonNull(type, "type is null");
    }
  }

  static RestClientConfig from(Configuration conf, Duration refreshInterval) {
    ConfigReader reader = new ConfigReader(conf);
    Optional<TrustStore> trustStore = Optional.empty();
    String path = reader.raw(ClusterKeys.REST_TRUSTSTORE_PATH);
    if (path != null) {
      if (!Path.of(path).isAbsolute()) {
        throw new InvalidConfigException(ClusterKeys.REST_TRUSTSTORE_PATH, path, "an absolute path of a trust store file");
      }
      String type = reader.isSet(ClusterKeys.REST_TRUSTSTORE_TYPE) ? reader.raw(ClusterKeys.REST_TRUSTSTORE_TYPE) : KeyStore.getDefaultType();
      trustStore = Optional.of(new TrustStore(Path.of(path), reader.secret(ClusterKeys.REST_TRUSTSTORE_PASSWORD), type));
    } else if (reader.isSet(ClusterKeys.REST_TRUSTSTORE_PASSWORD) || reader.isSet(ClusterKeys.REST_TRUSTSTORE_TYPE)) {
      throw new InvalidConfigException(ClusterKeys.REST_TRUSTSTORE_PATH, "",
          "a trust store path when " + ClusterKeys.REST_TRUSTSTORE_PASSWORD.name() + " or " + ClusterKeys.REST_TRUSTSTORE_TYPE.name() + " is set");
    }
    return new RestClientConfig(
        reader.getDuration(ClusterKeys.REST_CONNECT_TIMEOUT, Duration.ofMillis(1)),
        reader.getDuration(ClusterKeys.REST_REQUEST_TIMEOUT, Duration.ofMillis(1)),
        reader.getDuration(ClusterKeys.REST_INITIAL_WAIT, Duration.ZERO),
        refreshInterval,
        reader.getDuration(ClusterKeys.REST_BACKOFF_MAX, Duration.ofMillis(1)),
        trustStore);
  }

  /**
   * An absolute http or https base URL without user info, query or fragment; a trailing {@code /} is
   * dropped. Wrong URLs fail with the key, the URL (user info hidden) and what is allowed.
   */
  static URI baseUrl(String key, String value) {
    String allowed = "an absolute http:// or https:// URL such as http://host:8080, without user info, query or fragment";
    URI uri;
    try {
      uri = new URI(value.trim());
    } catch (URISyntaxException e) {
      throw new InvalidConfigException(key, redact(value), allowed);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null || uri.getRawUserInfo() != null
        || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new InvalidConfigException(key, redact(value), allowed);
    }
    String text = uri.toString();
    while (text.endsWith("/")) {
      text = text.substring(0, text.length() - 1);
    }
    return URI.create(text);
  }

  /** {@code value} with anything between {@code //} and {@code @} hidden. */
  static String redact(String value) {
    int start = value.indexOf("//");
    int at = value.indexOf('@', Math.max(start, 0));
    if (start < 0 || at < 0) {
      return value;
    }
    return value.substring(0, start + 2) + "[redacted]" + value.substring(at);
  }
}
