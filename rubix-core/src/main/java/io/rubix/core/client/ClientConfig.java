package io.rubix.core.client;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConfigReader;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.metadata.DataFileLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * How a reading JVM reaches its node's BookKeeper daemon.
 *
 * @param cacheDirs this JVM's configured cache directories: the only places whose data files it opens
 *     for the daemon (see {@link DataFileLayout#checkDataFile})
 * @param secretFile the BookKeeper secret the connection handshake proves, or null when no cache
 *     directory is configured and {@code rubix.bookkeeper.secret.file} is unset (then no connection can be made)
 */
public record ClientConfig(boolean embedded, String host, int port, Duration connectTimeout, Duration readTimeout, int poolSize,
    Duration backoffMax, int maxFrameSize, List<Path> cacheDirs, Path secretFile, Duration countersInterval) {
  public ClientConfig {
    requireNonNull(host, "host is null");
    requireNonNull(connectTimeout, "connectTimeout is null");
    requireNonNull(readTimeout, "readTimeout is null");
    requireNonNull(backoffMax, "backoffMax is null");
    requireNonNull(countersInterval, "countersInterval is null");
    cacheDirs = List.copyOf(requireNonNull(cacheDirs, "cacheDirs is null"));
  }

  /** This configuration, talking to the BookKeeper daemon at {@code host}:{@code port}. */
  public ClientConfig withDaemon(String host, int port) {
    return new ClientConfig(false, host, port, connectTimeout, readTimeout, poolSize, backoffMax, maxFrameSize, cacheDirs, secretFile,
        countersInterval);
  }

  public static ClientConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    List<Path> cacheDirs = CacheConfig.cacheDirs(conf);
    return new ClientConfig(
        reader.getBoolean(BookKeeperKeys.EMBEDDED_MODE),
        reader.raw(BookKeeperKeys.SERVER_HOST),
        reader.getInt(BookKeeperKeys.SERVER_PORT, 0, 65535),
        reader.getDuration(BookKeeperKeys.CONNECT_TIMEOUT, Duration.ofMillis(1)),
        reader.getDuration(BookKeeperKeys.READ_TIMEOUT, Duration.ofMillis(1)),
        reader.getInt(BookKeeperKeys.POOL_SIZE, 1, 4096),
        reader.getDuration(BookKeeperKeys.RETRY_BACKOFF_MAX, Duration.ZERO),
        (int) reader.getBytes(BookKeeperKeys.MAX_FRAME_SIZE, 1024, 1L << 30),
        cacheDirs,
        secretFile(conf, cacheDirs),
        reader.getDuration(BookKeeperKeys.COUNTERS_INTERVAL, Duration.ZERO));
  }

  /** {@code rubix.bookkeeper.secret.file}, by default {@code <first cache dir>/bookkeeper/secret}; null when neither is set. */
  public static Path secretFile(Configuration conf, List<Path> cacheDirs) {
    String configured = conf.getTrimmed(BookKeeperKeys.SECRET_FILE.name());
    if (configured != null && !configured.isEmpty()) {
      return Path.of(configured);
    }
    return cacheDirs.isEmpty() ? null : DataFileLayout.daemonRoots(cacheDirs).get(0).resolve("secret");
  }
}
