package io.rubix.core.client;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.spi.config.BookKeeperKeys;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;

/** How a reading JVM reaches its node's BookKeeper daemon. */
public record ClientConfig(boolean embedded, String host, int port, Duration connectTimeout, Duration readTimeout, int poolSize,
    Duration backoffMax, int maxFrameSize) {
  public ClientConfig {
    requireNonNull(host, "host is null");
    requireNonNull(connectTimeout, "connectTimeout is null");
    requireNonNull(readTimeout, "readTimeout is null");
    requireNonNull(backoffMax, "backoffMax is null");
  }

  /** This configuration, talking to the BookKeeper daemon at {@code host}:{@code port}. */
  public ClientConfig withDaemon(String host, int port) {
    return new ClientConfig(false, host, port, connectTimeout, readTimeout, poolSize, backoffMax, maxFrameSize);
  }

  public static ClientConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    return new ClientConfig(
        reader.getBoolean(BookKeeperKeys.EMBEDDED_MODE),
        reader.raw(BookKeeperKeys.SERVER_HOST),
        reader.getInt(BookKeeperKeys.SERVER_PORT, 0, 65535),
        reader.getDuration(BookKeeperKeys.CONNECT_TIMEOUT, Duration.ofMillis(1)),
        reader.getDuration(BookKeeperKeys.READ_TIMEOUT, Duration.ofMillis(1)),
        reader.getInt(BookKeeperKeys.POOL_SIZE, 1, 4096),
        reader.getDuration(BookKeeperKeys.RETRY_BACKOFF_MAX, Duration.ZERO),
        (int) reader.getBytes(BookKeeperKeys.MAX_FRAME_SIZE, 1024, 1L << 30));
  }
}
