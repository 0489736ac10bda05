package io.rubix.bookkeeper;

import io.rubix.core.client.ClientConfig;
import io.rubix.core.client.InProcessBookKeeper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a {@link BookKeeper} inside the calling JVM ({@code rubix.bookkeeper.embedded=true}) and
 * closes it when the JVM exits, so its journal is complete. Registered for {@link java.util.ServiceLoader}.
 */
public final class InProcessBookKeeperStarter implements InProcessBookKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessBookKeeperStarter.class);

  @Override
  public ClientConfig start(Configuration conf, ClientConfig client) throws IOException {
    BookKeeperConfig config = BookKeeperConfig.from(conf);
    BookKeeper bookKeeper = BookKeeper.start(config);
    Runtime.getRuntime().addShutdownHook(new Thread(bookKeeper::close, "rubix-bookkeeper-shutdown"));
    LOG.info("Started the BookKeeper inside this JVM: Thrift port {}, data-transfer port {}", bookKeeper.port(), bookKeeper.transferPort());
    return client.withDaemon(connectHost(config.bindAddress()), bookKeeper.port());
  }

  /** The bind address, or loopback when it is a wildcard address. */
  private static String connectHost(String bindAddress) {
    try {
      return InetAddress.getByName(bindAddress).isAnyLocalAddress() ? "127.0.0.1" : bindAddress;
    } catch (UnknownHostException e) {
      return bindAddress;
    }
  }
}
