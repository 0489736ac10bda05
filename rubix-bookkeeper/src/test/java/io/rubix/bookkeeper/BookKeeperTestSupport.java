package io.rubix.bookkeeper;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/** Configuration for BookKeepers and clients in tests: ephemeral ports, loopback, one cache dir. */
public final class BookKeeperTestSupport {
  /**
   * The block size of these tests' daemons and clients unless a test sets its own: 1 MiB, not the
   * default, so that the block counts and sizes the tests assert stay as they were written.
   */
  public static final String BLOCK_SIZE = "1m";

  private BookKeeperTestSupport() {}

  public static Configuration daemonConf(Path cacheDir) {
    Configuration conf = new Configuration(false);
    conf.set(CacheKeys.DIRS.name(), cacheDir.toString());
    conf.set(CacheKeys.BLOCK_SIZE.name(), BLOCK_SIZE);
    conf.set(BookKeeperKeys.SERVER_PORT.name(), "0");
    conf.set(BookKeeperKeys.METRICS_PORT.name(), "0");
    conf.set(BookKeeperKeys.TRANSFER_SERVER_PORT.name(), "0");
    conf.set(BookKeeperKeys.NODE_ID.name(), "test-node");
    return conf;
  }

  /** A client's configuration for the BookKeeper at {@code port} serving {@code cacheDir}; the client's own defaults otherwise. */
  public static Configuration clientConf(Path cacheDir, int port) {
    Configuration conf = new Configuration(false);
    conf.set(CacheKeys.DIRS.name(), cacheDir.toString());
    conf.set(CacheKeys.BLOCK_SIZE.name(), BLOCK_SIZE);
    conf.set(BookKeeperKeys.EMBEDDED_MODE.name(), "false");
    conf.set(BookKeeperKeys.SERVER_PORT.name(), Integer.toString(port));
    return conf;
  }

  /** A client of the BookKeeper at {@code port} (see {@link #clientConf}). */
  public static BookKeeperClient client(Configuration clientConf, int blockSize) {
    return new BookKeeperClient(ClientConfig.from(clientConf), blockSize, System::nanoTime);
  }

  /** Client settings that make {@code conf} read through the BookKeeper at {@code port}. */
  public static Configuration useDaemon(Configuration conf, Path cacheDir, int port) {
    conf.set(CacheKeys.DIRS.name(), cacheDir.toString());
    conf.setIfUnset(CacheKeys.BLOCK_SIZE.name(), BLOCK_SIZE);
    conf.set(BookKeeperKeys.EMBEDDED_MODE.name(), "false");
    conf.set(BookKeeperKeys.SERVER_PORT.name(), Integer.toString(port));
    conf.set(BookKeeperKeys.READ_TIMEOUT.name(), "2s");
    conf.set(BookKeeperKeys.RETRY_BACKOFF_MAX.name(), "200ms");
    return conf;
  }
}
