package io.rubix.bookkeeper;

import static java.util.Objects.requireNonNull;

import io.rubix.core.client.ClientConfig;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.peer.PeerConfig;
import io.rubix.core.peer.PeerFetchConfig;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;

/**
 * The BookKeeper daemon's configuration: the cache it manages and where it listens (Thrift, metrics and
 * data-transfer ports, each with its own bind address), the secret file that guards the Thrift port,
 * whether it fetches blocks from the source for peers, and the Hadoop settings (credentials) it opens
 * sources with for that.
 */
public record BookKeeperConfig(CacheConfig cache, String bindAddress, int port, int maxFrameSize, Duration frameTimeout, int workerThreads,
    int metricsPort, String metricsBindAddress, String transferBindAddress, Path secretFile, String nodeId, PeerConfig transfer,
    PeerFetchConfig fetch, Configuration sourceConf) {
  public BookKeeperConfig {
    requireNonNull(metricsBindAddress, "metricsBindAddress is null");
    requireNonNull(transferBindAddress, "transferBindAddress is null");
    requireNonNull(secretFile, "secretFile is null");
    requireNonNull(transfer, "transfer is null");
    requireNonNull(fetch, "fetch is null");
    requireNonNull(sourceConf, "sourceConf is null");
    requireNonNull(cache, "cache is null");
    requireNonNull(frameTimeout, "frameTimeout is null");
    requireNonNull(bindAddress, "bindAddress is null");
    requireNonNull(nodeId, "nodeId is null");
  }

  public static BookKeeperConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    CacheConfig cache = CacheConfig.from(conf);
    if (!cache.enabled()) {
      throw new InvalidConfigException(CacheKeys.ENABLED, "false", "true for the BookKeeper daemon");
    }
    String nodeId = reader.raw(BookKeeperKeys.NODE_ID);
    if (nodeId == null) {
      try {
        nodeId = InetAddress.getLocalHost().getCanonicalHostName();
      } catch (UnknownHostException e) {
        nodeId = "localhost";
      }
    }
    return new BookKeeperConfig(
        cache,
        reader.raw(BookKeeperKeys.BIND_ADDRESS),
        reader.getInt(BookKeeperKeys.SERVER_PORT, 0, 65535),
        (int) reader.getBytes(BookKeeperKeys.MAX_FRAME_SIZE, 1024, 1L << 30),
        reader.getDuration(BookKeeperKeys.FRAME_TIMEOUT, Duration.ofMillis(100)),
        reader.getInt(BookKeeperKeys.WORKER_THREADS, 1, 1024),
        reader.getInt(BookKeeperKeys.METRICS_PORT, -1, 65535),
        reader.raw(BookKeeperKeys.METRICS_BIND_ADDRESS),
        reader.raw(BookKeeperKeys.TRANSFER_BIND_ADDRESS),
        ClientConfig.secretFile(conf, cache.cacheDirs()),
        nodeId,
        PeerConfig.from(conf),
        PeerFetchConfig.from(conf),
        new Configuration(conf));
  }
}
