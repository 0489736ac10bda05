package io.rubix.spark;

import io.rubix.bookkeeper.BookKeeper;
import io.rubix.bookkeeper.BookKeeperConfig;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.cluster.ClusterConfig;
import io.rubix.core.config.CacheConfig;
import io.rubix.spi.config.ClusterKeys;
import io.rubix.spi.thrift.TServiceInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executor side of {@link RubixPlugin}: uses the node's BookKeeper daemon when one answers, otherwise
 * starts one in this JVM on the configured port (a second executor of the node then finds it and
 * shares it). A failure here never fails the executor: the file systems then read from the source
 * (or cache in-process, in embedded mode).
 */
final class RubixExecutorPlugin implements ExecutorPlugin {
  private static final Logger LOG = LoggerFactory.getLogger(RubixExecutorPlugin.class);

  private BookKeeper started;
  private NodeListRelay relay;

  @Override
  public void init(PluginContext context, Map<String, String> extraConf) {
    Configuration conf = SparkHadoopConf.from(context.conf());
    extraConf.forEach(conf::set);
    if (context.conf().contains(RubixDriverPlugin.NODES_FILE) && conf.get(ClusterKeys.MANAGER.name()) == null) {
      // the BookKeeper this executor may start knows the cluster the driver keeps, as the session's file systems
      // do: it hands over blocks from their previous owners when its node joined
      conf.set(ClusterKeys.MANAGER.name(), ClusterConfig.FILE);
      conf.set(ClusterKeys.NODES_FILE.name(), Path.of(context.conf().get(RubixDriverPlugin.NODES_FILE)).toAbsolutePath().toString());
    }
    ClientConfig client = ClientConfig.from(conf);
    int port = client.port();
    boolean embedded = false;
    try {
      TServiceInfo info = probe(client, CacheConfig.blockSize(conf));
      if (info != null) {
        LOG.info("Executor {} uses the BookKeeper {} at {}:{}", context.executorID(), info.getNodeId(), client.host(), port);
      } else {
        started = startBookKeeper(conf, client);
        if (started != null) {
          port = started.port();
          embedded = true;
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("RubiX could not reach or start a BookKeeper on executor {}; reads go to the source", context.executorID(), e);
    }
    try {
      String host = host(context);
      context.send(new ExecutorRegistration(context.executorID(), host, port, embedded, cacheHost(client, host)));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not register executor {} with the RubiX driver plugin", context.executorID(), e);
    }
    if (context.conf().contains(RubixDriverPlugin.NODES_FILE)) {
      try {
        relay = new NodeListRelay(Path.of(context.conf().get(RubixDriverPlugin.NODES_FILE)), context::ask);
        relay.start(ClusterConfig.from(conf).refreshInterval());
      } catch (RuntimeException e) {
        LOG.warn("RubiX could not start copying the executor host list on executor {}", context.executorID(), e);
      }
    }
  }

  /**
   * The host the scheduler knows this executor by. {@code PluginContext.hostname()} reads the
   * executor's RPC server address, and a cluster executor has none (it only connects out), so it
   * fails there; the block manager advertises the host the executor registered with.
   */
  static String host(PluginContext context) {
    SparkEnv env = SparkEnv.get();
    if (env != null && env.blockManager() != null && env.blockManager().blockManagerId() != null) {
      return env.blockManager().blockManagerId().host();
    }
    return context.hostname();
  }

  /**
   * The address of the BookKeeper this executor uses, as its peers and the scheduler know the node:
   * the executor's own host, unless the client reaches the daemon at another, non-loopback address
   * (a Kubernetes pod reaching its node's daemon at the node's address).
   */
  static String cacheHost(ClientConfig client, String executorHost) {
    String daemon = client.host();
    try {
      if (daemon == null || daemon.isBlank() || InetAddress.getByName(daemon).isLoopbackAddress()) {
        return executorHost;
      }
    } catch (UnknownHostException e) {
      return executorHost;
    }
    return daemon;
  }

  /** The BookKeeper answering on the configured host and port, or null when none does. */
  static TServiceInfo probe(ClientConfig client, int blockSize) {
    try (BookKeeperClient probe = new BookKeeperClient(client, blockSize, System::nanoTime)) {
      return probe.info();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static BookKeeper startBookKeeper(Configuration conf, ClientConfig client) {
    BookKeeperConfig config = BookKeeperConfig.from(conf);
    try {
      return BookKeeper.start(config);
    } catch (IOException e) {
      // another executor of this node may have started one meanwhile
      if (probe(client, config.cache().blockSize()) != null) {
        LOG.info("Another JVM of this node started the BookKeeper on port {}; using it", client.port());
        return null;
      }
      throw new UncheckedIOException("Starting the embedded BookKeeper on port " + config.port() + " failed", e);
    }
  }

  @Override
  public void shutdown() {
    if (relay != null) {
      relay.close();
      relay = null;
    }
    if (started != null) {
      started.close();
      started = null;
    }
  }
}
