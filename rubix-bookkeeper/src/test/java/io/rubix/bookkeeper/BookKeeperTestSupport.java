package io.rubix.bookkeeper;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/** Configuration for BookKeepers and clients in tests: ephemeral ports, loopback, one cache dir. */
public final class BookKeeperTestSupport {
  private BookKeeperTestSupport() {}

  public static Configuration daemonConf(Path cacheDir) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.network.bookkeeper.server.port", "0");
    conf.set("rubix.bookkeeper.metrics.port", "0");
    conf.set("rubix.network.transfer.server.port", "0");
    conf.set("rubix.cluster.node.id", "test-node");
    return conf;
  }

  /** Client settings that make {@code conf} read through the BookKeeper at {@code port}. */
  public static Configuration useDaemon(Configuration conf, Path cacheDir, int port) {
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cluster.embedded.mode", "false");
    conf.set("rubix.network.bookkeeper.server.port", Integer.toString(port));
    conf.set("rubix.network.client.read.timeout", "2s");
    conf.set("rubix.network.client.backoff.max", "200ms");
    return conf;
  }
}
