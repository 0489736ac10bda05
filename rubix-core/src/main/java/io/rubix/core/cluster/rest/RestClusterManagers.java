package io.rubix.core.cluster.rest;

import io.rubix.core.cluster.ClusterConfig;
import io.rubix.core.cluster.NodeSource;
import io.rubix.core.cluster.PollingClusterManager;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.LocalIdentity;
import io.rubix.spi.cluster.NodeNames;
import io.rubix.spi.config.ClusterKeys;
import java.time.Clock;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the cluster managers that poll an engine's REST API: {@code presto}, {@code trino} and {@code yarn}. */
public final class RestClusterManagers {
  private static final Logger LOG = LoggerFactory.getLogger(RestClusterManagers.class);

  private RestClusterManagers() {}

  /** The {@code presto} cluster manager: PrestoDB's coordinator, {@code X-Presto-User}. */
  public static ClusterManager presto(Configuration conf, ClusterConfig cluster, LocalIdentity identity) {
    return coordinator(conf, cluster, identity, PrestoFlavor.PRESTO);
  }

  /** The {@code trino} cluster manager: Trino's coordinator, {@code X-Trino-User}. */
  public static ClusterManager trino(Configuration conf, ClusterConfig cluster, LocalIdentity identity) {
    return coordinator(conf, cluster, identity, PrestoFlavor.TRINO);
  }

  /** The {@code yarn} cluster manager: the ResourceManager's RUNNING nodes. */
  public static ClusterManager yarn(Configuration conf, ClusterConfig cluster, LocalIdentity identity) {
    RestClientConfig rest = RestClientConfig.from(conf, cluster.refreshInterval());
    YarnClusterConfig yarn = YarnClusterConfig.from(conf);
    return poll(new YarnNodeSource(new RestHttp(rest), yarn), rest, cluster, identity);
  }

  private static ClusterManager coordinator(Configuration conf, ClusterConfig cluster, LocalIdentity identity, PrestoFlavor flavor) {
    RestClientConfig rest = RestClientConfig.from(conf, cluster.refreshInterval());
    PrestoClusterConfig presto = PrestoClusterConfig.from(conf, flavor);
    if (presto.coordinator().getScheme().equalsIgnoreCase("http") && !presto.authorization().equals(Authorization.NONE)) {
      LOG.warn("Sending credentials ({}) to {} over plain http", presto.authorization(), presto.coordinator());
    }
    String host = NodeNames.normalize(presto.coordinator().getHost());
    if (presto.includeCoordinator() && (host.equals("localhost") || host.startsWith("127.") || host.equals("::1"))) {
      LOG.warn("{} is a loopback address: with {}=true every node that reaches the coordinator this way counts itself as the"
          + " coordinator; use the coordinator's own host name", presto.coordinator(), ClusterKeys.PRESTO_INCLUDE_COORDINATOR.name());
    }
    return poll(new PrestoNodeSource(new RestHttp(rest), presto), rest, cluster, identity);
  }

  private static ClusterManager poll(NodeSource source, RestClientConfig rest, ClusterConfig cluster, LocalIdentity identity) {
    return new PollingClusterManager(source, cluster.defaultPort(), identity, rest.refreshInterval(), rest.backoffMax(),
        rest.initialWait(), Clock.systemUTC());
  }
}
