package io.rubix.core.cluster.setup;

import io.rubix.core.cluster.ClusterConfig;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.FileClusterManager;
import io.rubix.core.cluster.LivenessConfig;
import io.rubix.core.cluster.NodeList;
import io.rubix.core.cluster.NodeLiveness;
import io.rubix.core.cluster.PollingClusterManager;
import io.rubix.core.cluster.StaticClusterManager;
import io.rubix.core.cluster.rest.RestClusterManagers;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.LocalIdentity;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.ClusterKeys;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * Builds cluster locality from configuration: the manager {@code rubix.cluster.manager} names (one
 * of {@code io.rubix.core.cluster}'s own, a REST one of {@code cluster.rest}, or a class), its
 * liveness tracking and its JMX bean. The one place that knows every kind of manager, so the kinds
 * depend on the cluster's base types and never the other way.
 */
public final class ClusterSetup {
  private ClusterSetup() {}

  /** The locality {@code conf} configures, or null when {@code rubix.cluster.manager=none}. */
  public static ClusterLocality locality(Configuration conf) {
    ClusterConfig config = ClusterConfig.from(conf);
    LivenessConfig livenessConfig = LivenessConfig.from(conf);
    ClusterManager manager = manager(conf, config);
    if (manager == null) {
      return null;
    }
    ClusterLocality locality = new ClusterLocality(manager, config, new NodeLiveness(manager, livenessConfig));
    if (new ConfigReader(conf).getBoolean(CacheKeys.JMX_ENABLED)) {
      locality.exposeMembership(manager instanceof PollingClusterManager polling ? polling.source() : config.manager());
    }
    return locality;
  }

  /** The configured manager, or null for {@code none}. */
  public static ClusterManager manager(Configuration conf, ClusterConfig config) {
    ConfigReader reader = new ConfigReader(conf);
    return switch (config.manager().toLowerCase(Locale.ROOT)) {
      case ClusterConfig.NONE -> null;
      case ClusterConfig.STATIC -> {
        String nodes = reader.raw(ClusterKeys.NODES);
        if (nodes == null) {
          throw new InvalidConfigException(ClusterKeys.NODES, "", "a comma-separated node list when " + ClusterKeys.MANAGER.name() + "=static");
        }
        try {
          yield new StaticClusterManager(NodeList.parse(nodes, config.defaultPort(), ClusterKeys.NODES.name()), identity(config));
        } catch (IllegalArgumentException e) {
          throw new InvalidConfigException(ClusterKeys.NODES, nodes, "entries host, host:port, id=host or id=host:port (" + e.getMessage() + ")");
        }
      }
      case ClusterConfig.FILE -> {
        String file = reader.raw(ClusterKeys.NODES_FILE);
        if (file == null || !Path.of(file).isAbsolute()) {
          throw new InvalidConfigException(ClusterKeys.NODES_FILE, file == null ? "" : file,
              "an absolute file path when " + ClusterKeys.MANAGER.name() + "=file");
        }
        yield new FileClusterManager(Path.of(file), config.defaultPort(), identity(config), config.refreshInterval());
      }
      case ClusterConfig.PRESTO -> RestClusterManagers.presto(conf, config, identity(config));
      case ClusterConfig.TRINO -> RestClusterManagers.trino(conf, config, identity(config));
      case ClusterConfig.YARN -> RestClusterManagers.yarn(conf, config, identity(config));
      default -> byClassName(conf, config.manager());
    };
  }

  /** Who this node is: {@code rubix.cluster.node.id}, else every name and address of this machine. */
  public static LocalIdentity identity(ClusterConfig config) {
    return LocalIdentity.detect(config.nodeId().orElse(null));
  }

  private static ClusterManager byClassName(Configuration conf, String className) {
    String allowed = "none, static, file, presto, trino, yarn or the name of a ClusterManager class with a public (Configuration) constructor";
    try {
      Class<? extends ClusterManager> type = conf.getClassByName(className).asSubclass(ClusterManager.class);
      return type.getConstructor(Configuration.class).newInstance(conf);
    } catch (ClassNotFoundException | ClassCastException | NoSuchMethodException | InstantiationException | IllegalAccessException e) {
      throw new InvalidConfigException(ClusterKeys.MANAGER, className, allowed + " (" + e + ")");
    } catch (InvocationTargetException e) {
      throw new InvalidConfigException(ClusterKeys.MANAGER, className, allowed + " (its constructor failed: " + e.getCause() + ")");
    }
  }
}
