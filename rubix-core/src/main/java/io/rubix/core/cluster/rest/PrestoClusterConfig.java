package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.config.Secret;
import io.rubix.spi.config.ClusterKeys;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * The settings of the {@code presto} and {@code trino} cluster managers ({@code rubix.cluster.presto.*}).
 *
 * @param coordinator the coordinator's base URL
 * @param includeCoordinator whether the coordinator is a cache node too
 */
record PrestoClusterConfig(PrestoFlavor flavor, URI coordinator, String user, Authorization authorization, boolean includeCoordinator) {
  PrestoClusterConfig {
    requireNonNull(flavor, "flavor is null");
    requireNonNull(coordinator, "coordinator is null");
    requireNonNull(user, "user is null");
    requireNonNull(authorization, "authorization is null");
  }

  static PrestoClusterConfig from(Configuration conf, PrestoFlavor flavor) {
    ConfigReader reader = new ConfigReader(conf);
    String url = reader.raw(ClusterKeys.PRESTO_COORDINATOR_URL);
    if (url == null) {
      throw new InvalidConfigException(ClusterKeys.PRESTO_COORDINATOR_URL, "",
          "the coordinator's URL (http://host:8080) when " + ClusterKeys.MANAGER.name() + "=" + flavor.managerName());
    }
    URI coordinator = RestClientConfig.baseUrl(ClusterKeys.PRESTO_COORDINATOR_URL.name(), url);
    String user = reader.raw(ClusterKeys.PRESTO_USER);
    if (user.contains(":") || user.chars().anyMatch(Character::isISOControl)) {
      throw new InvalidConfigException(ClusterKeys.PRESTO_USER, user, "a user name without ':' or control characters");
    }
    Optional<Secret> password = reader.secret(ClusterKeys.PRESTO_PASSWORD);
    Optional<Secret> token = reader.secret(ClusterKeys.PRESTO_TOKEN);
    String tokenFile = reader.raw(ClusterKeys.PRESTO_TOKEN_FILE);
    int credentials = (password.isPresent() ? 1 : 0) + (token.isPresent() ? 1 : 0) + (tokenFile != null ? 1 : 0);
    if (credentials > 1) {
      throw new InvalidConfigException(ClusterKeys.PRESTO_PASSWORD.name() + ", " + ClusterKeys.PRESTO_TOKEN.name() + ", "
          + ClusterKeys.PRESTO_TOKEN_FILE.name(), "[redacted]", "at most one of them");
    }
    Authorization authorization = Authorization.NONE;
    if (password.isPresent()) {
      authorization = Authorization.basic(user, password.get());
    } else if (token.isPresent()) {
      if (token.get().reveal().chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
        throw new InvalidConfigException(ClusterKeys.PRESTO_TOKEN, "[redacted]", "a token without white space or control characters");
      }
      authorization = Authorization.bearer(token.get());
    } else if (tokenFile != null) {
      if (!Path.of(tokenFile).isAbsolute()) {
        throw new InvalidConfigException(ClusterKeys.PRESTO_TOKEN_FILE, tokenFile, "an absolute path of a file holding the token");
      }
      authorization = Authorization.bearerFile(Path.of(tokenFile));
    }
    return new PrestoClusterConfig(flavor, coordinator, user, authorization, reader.getBoolean(ClusterKeys.PRESTO_INCLUDE_COORDINATOR));
  }
}
