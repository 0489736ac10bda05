package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.ClusterKeys;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * The settings of the {@code yarn} cluster manager: the ResourceManagers to ask, in order, and the
 * user for Hadoop's simple authentication.
 *
 * <p>Kerberos (SPNEGO) is not supported: negotiating it needs a Kerberos login of this JVM and
 * Hadoop's authentication client, whose versions differ between the engines RubiX runs in (Hadoop
 * 2.7 in PrestoDB, a relocated 3.3 in Trino, 3.4 in Spark); a Kerberized cluster uses the file
 * cluster manager fed by its provisioning instead.
 */
record YarnClusterConfig(List<URI> resourceManagers, String user) {
  static final String WEBAPP_ADDRESS = "yarn.resourcemanager.webapp.address";
  static final String WEBAPP_HTTPS_ADDRESS = "yarn.resourcemanager.webapp.https.address";
  static final String HOSTNAME = "yarn.resourcemanager.hostname";
  static final String HA_ENABLED = "yarn.resourcemanager.ha.enabled";
  static final String HA_RM_IDS = "yarn.resourcemanager.ha.rm-ids";
  static final String HTTP_POLICY = "yarn.http.policy";

  YarnClusterConfig {
    resourceManagers = List.copyOf(resourceManagers);
    requireNonNull(user, "user is null");
    if (resourceManagers.isEmpty()) {
      throw new IllegalArgumentException("No ResourceManager");
    }
  }

  static YarnClusterConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    String user = reader.isSet(ClusterKeys.YARN_USER) ? reader.raw(ClusterKeys.YARN_USER) : System.getProperty("user.name", "");
    if (user.isEmpty() || user.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
      throw new InvalidConfigException(ClusterKeys.YARN_USER, user, "a user name without white space");
    }
    List<URI> urls = new ArrayList<>();
    if (reader.isSet(ClusterKeys.YARN_RESOURCEMANAGER_URL)) {
      for (String url : reader.getList(ClusterKeys.YARN_RESOURCEMANAGER_URL)) {
        urls.add(RestClientConfig.baseUrl(ClusterKeys.YARN_RESOURCEMANAGER_URL.name(), url));
      }
    } else {
      urls.addAll(fromHadoop(conf));
    }
    if (urls.isEmpty()) {
      throw new InvalidConfigException(ClusterKeys.YARN_RESOURCEMANAGER_URL, "",
          "ResourceManager URLs (http://rm:8088) when " + ClusterKeys.MANAGER.name() + "=yarn and the configuration has no "
              + WEBAPP_ADDRESS + ", " + HOSTNAME + " or " + HA_RM_IDS);
    }
    return new YarnClusterConfig(urls, user);
  }

  /** The web service URLs Hadoop's YARN settings name, one per ResourceManager (HA: per RM id, in order). */
  private static List<URI> fromHadoop(Configuration conf) {
    boolean https = "HTTPS_ONLY".equalsIgnoreCase(conf.getTrimmed(HTTP_POLICY, "HTTP_ONLY"));
    String scheme = https ? "https" : "http";
    String addressKey = https ? WEBAPP_HTTPS_ADDRESS : WEBAPP_ADDRESS;
    int defaultPort = https ? 8090 : 8088;
    List<URI> urls = new ArrayList<>();
    String[] ids = conf.getTrimmedStrings(HA_RM_IDS);
    if (conf.getBoolean(HA_ENABLED, false) && ids.length > 0) {
      for (String id : ids) {
        URI url = url(conf, scheme, addressKey + "." + id, HOSTNAME + "." + id, defaultPort);
        if (url == null) {
          throw new InvalidConfigException(addressKey + "." + id, "", "the host:port of ResourceManager " + id + " (or " + HOSTNAME + "." + id
              + "), or set " + ClusterKeys.YARN_RESOURCEMANAGER_URL.name());
        }
        urls.add(url);
      }
    } else {
      URI url = url(conf, scheme, addressKey, HOSTNAME, defaultPort);
      if (url != null) {
        urls.add(url);
      }
    }
    return urls;
  }

  private static URI url(Configuration conf, String scheme, String addressKey, String hostKey, int defaultPort) {
    String address = conf.getTrimmed(addressKey);
    String where = addressKey;
    if (address == null || address.isEmpty()) {
      String host = conf.getTrimmed(hostKey);
      if (host == null || host.isEmpty()) {
        return null;
      }
      address = host + ":" + defaultPort;
      where = hostKey;
    }
    int schemeEnd = address.indexOf("://");
    String hostPort = schemeEnd >= 0 ? address.substring(schemeEnd + 3) : address;
    try {
      URI uri = new URI(scheme + "://" + hostPort.toLowerCase(Locale.ROOT));
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("no host");
      }
      return uri.getPort() < 0 ? new URI(scheme, null, uri.getHost(), defaultPort, null, null, null) : uri;
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new InvalidConfigException(where, address, "host:port of the ResourceManager's web services");
    }
  }
}
