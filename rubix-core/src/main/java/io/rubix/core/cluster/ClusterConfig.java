package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.Admission;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.ClusterKeys;
import java.time.Duration;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * The cluster settings of one file system, read from a Hadoop {@link Configuration} and validated.
 *
 * @param manager {@code none}, {@code static}, {@code file}, {@code presto}, {@code trino}, {@code yarn} or a class name
 * @param nodeId the configured node id, if any
 * @param defaultPort the port of node entries that give none
 */
public record ClusterConfig(
    String manager,
    Optional<String> nodeId,
    int defaultPort,
    Duration refreshInterval,
    int preferredHosts,
    long splitSize,
    Admission admission) {
  public static final String NONE = "none";
  public static final String STATIC = "static";
  public static final String FILE = "file";
  public static final String PRESTO = "presto";
  public static final String TRINO = "trino";
  public static final String YARN = "yarn";

  public ClusterConfig {
    requireNonNull(manager, "manager is null");
    requireNonNull(nodeId, "nodeId is null");
    requireNonNull(refreshInterval, "refreshInterval is null");
    requireNonNull(admission, "admission is null");
    if (preferredHosts < 1 || preferredHosts > 3) {
      throw new IllegalArgumentException("preferredHosts must be 1-3: " + preferredHosts);
    }
    if (splitSize <= 0) {
      throw new IllegalArgumentException("splitSize must be positive: " + splitSize);
    }
  }

  public static ClusterConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    String manager = reader.raw(ClusterKeys.MANAGER);
    boolean none = NONE.equalsIgnoreCase(manager);
    Admission admission = reader.isSet(ClusterKeys.ADMISSION)
        ? reader.getEnum(ClusterKeys.ADMISSION, Admission.class)
        : none ? Admission.ALL : Admission.OWNER_ONLY;
    long blockSize = CacheConfig.blockSize(conf);
    long splitSize = reader.getBytes(ClusterKeys.FILESPLIT_SIZE, 1, 1L << 40);
    if (splitSize < blockSize) {
      throw new InvalidConfigException(ClusterKeys.FILESPLIT_SIZE, Long.toString(splitSize),
          "at least " + CacheKeys.BLOCK_SIZE.name() + " (" + blockSize + ")");
    }
    String nodeId = reader.raw(BookKeeperKeys.NODE_ID);
    // 0 (a daemon on a free port, in tests) says nothing about the port other nodes use
    int port = reader.getInt(BookKeeperKeys.SERVER_PORT, 0, 65535);
    return new ClusterConfig(
        none ? NONE : manager,
        Optional.ofNullable(nodeId),
        port == 0 ? Integer.parseInt(BookKeeperKeys.SERVER_PORT.defaultValue()) : port,
        reader.getDuration(ClusterKeys.REFRESH_INTERVAL, Duration.ofMillis(10)),
        reader.getInt(ClusterKeys.PREFERRED_HOSTS, 1, 3),
        splitSize,
        admission);
  }

  public boolean enabled() {
    return !NONE.equals(manager);
  }
}
