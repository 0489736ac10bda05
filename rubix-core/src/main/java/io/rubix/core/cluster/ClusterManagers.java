package io.rubix.core.cluster;

import io.rubix.core.cluster.rest.RestClusterManagers;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.LocalIdentity;
import io.rubix.spi.config.ClusterKeys;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/** Builds the cluster manager {@code rubix.cluster.manager} names. */
public final class ClusterManagers {
  private ClusterManagers() {}

  /** The configured manager, or null for {@code none}. */
  public static ClusterManager create(Configuration conf, ClusterConfig config) {
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
