package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.spi.config.BookKeeperKeys;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;

/** Settings of peer reads, shared by the data-transfer server and its clients. */
public record PeerConfig(boolean enabled, int port, String secret, Duration timeout, int serverThreads, TransferTlsConfig tls) {
  public PeerConfig {
    requireNonNull(timeout, "timeout is null");
    requireNonNull(tls, "tls is null");
  }

  public static PeerConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    return new PeerConfig(
        reader.getBoolean(BookKeeperKeys.TRANSFER_ENABLED),
        reader.getInt(BookKeeperKeys.TRANSFER_SERVER_PORT, -1, 65535),
        reader.raw(BookKeeperKeys.TRANSFER_SECRET),
        reader.getDuration(BookKeeperKeys.TRANSFER_TIMEOUT, Duration.ofMillis(1)),
        reader.getInt(BookKeeperKeys.TRANSFER_SERVER_THREADS, 1, 256),
        TransferTlsConfig.from(conf));
  }

  @Override
  public String toString() {
    // never the secret
    return "PeerConfig[enabled=" + enabled + ", port=" + port + ", secret=" + (secret == null ? "unset" : "set") + ", timeout=" + timeout
        + ", serverThreads=" + serverThreads + ", tls=" + tls + "]";
  }
}
