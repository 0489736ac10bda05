package io.rubix.spark;

import io.rubix.core.cluster.ClusterConfig;
import io.rubix.spark.sql.ExecutorHosts;
import io.rubix.spark.sql.RubixExtensions;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.ClusterKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Driver side of {@link RubixPlugin}: points the session's caching file systems at the executors'
 * BookKeepers and keeps the list of their cache nodes (the executors' hosts, or their nodes' daemon
 * addresses where those differ, as for Kubernetes pods; then {@link ExecutorHosts} maps them back to
 * the executors' hosts for the scheduler), published as the Hadoop key {@value #NODES_KEY}
 * of the SparkContext's Hadoop configuration (comma-separated, sorted) and, when
 * {@value #NODES_FILE} is set, as a file with one host per line (replaced atomically) that the
 * executors' {@link NodeListRelay}s copy to their nodes. With that file and no
 * {@code rubix.cluster.manager} of the user's, the session's caching file systems use it as their
 * cluster ({@code rubix.cluster.manager=file}), so split owners follow the executors.
 */
final class RubixDriverPlugin implements DriverPlugin {
  /** Hadoop key the driver publishes the cache nodes under. */
  static final String NODES_KEY = "rubix.cluster.nodes";
  /** Spark key: a file the driver keeps the cache nodes in. */
  static final String NODES_FILE = "spark.rubix.nodes.file";

  /** Spark's static key naming the session extensions. */
  static final String EXTENSIONS = "spark.sql.extensions";

  private static final Logger LOG = LoggerFactory.getLogger(RubixDriverPlugin.class);

  private final Map<String, ExecutorRegistration> executors = new ConcurrentHashMap<>();
  private Configuration hadoopConf;
  private Path nodesFile;
  private long version;

  @Override
  public Map<String, String> init(SparkContext context, PluginContext pluginContext) {
    addExtensions(pluginContext.conf());
    hadoopConf = context.hadoopConfiguration();
    String mode = SparkHadoopConf.PREFIX + BookKeeperKeys.EMBEDDED_MODE.name();
    if (!context.getConf().contains(mode)) {
      hadoopConf.set(BookKeeperKeys.EMBEDDED_MODE.name(), "false");
    }
    if (context.getConf().contains(NODES_FILE)) {
      nodesFile = Path.of(context.getConf().get(NODES_FILE));
      // the list is the cluster, unless the user chose another source
      if (!context.getConf().contains(SparkHadoopConf.PREFIX + ClusterKeys.MANAGER.name())) {
        hadoopConf.set(ClusterKeys.MANAGER.name(), ClusterConfig.FILE);
        hadoopConf.set(ClusterKeys.NODES_FILE.name(), nodesFile.toAbsolutePath().toString());
      }
      // the list exists, empty, from the start: a file system made before any executor registered reads no nodes, not a missing file
      publish();
    }
    context.addSparkListener(new SparkListener() {
      @Override
      public void onExecutorRemoved(SparkListenerExecutorRemoved removed) {
        if (executors.remove(removed.executorId()) != null) {
          publish();
        }
      }
    });
    return Collections.emptyMap();
  }

  /**
   * Adds {@link RubixExtensions} to {@value #EXTENSIONS} of the SparkContext's configuration, which
   * sessions read when they are built, after the context (and this plugin) started; not on a Spark
   * whose scan node it cannot extend.
   */
  static void addExtensions(SparkConf conf) {
    if (!RubixExtensions.supported()) {
      return;
    }
    String extension = RubixExtensions.class.getName();
    String current = conf.get(EXTENSIONS, "").trim();
    if (!List.of(current.split("\\s*,\\s*")).contains(extension)) {
      conf.set(EXTENSIONS, current.isEmpty() ? extension : current + "," + extension);
    }
  }

  @Override
  public Object receive(Object message) {
    if (message instanceof ExecutorRegistration registration) {
      LOG.info("RubiX executor {} on {} uses the BookKeeper at {}:{} ({})", registration.executorId(), registration.host(),
          registration.cacheHost(), registration.bookKeeperPort(), registration.embedded() ? "embedded" : "node daemon");
      executors.put(registration.executorId(), registration);
      publish();
      return null;
    }
    if (message instanceof NodeListMessages.Request) {
      return nodeList();
    }
    return null;
  }

  /**
   * The cache nodes of the executors currently registered (the addresses of the BookKeepers they use:
   * their own hosts, unless they reach their node's daemon at the node's address), sorted, without duplicates.
   */
  List<String> hosts() {
    return List.copyOf(executorsByNode().keySet());
  }

  /** The hosts of the registered executors by the cache node they use. */
  private Map<String, Set<String>> executorsByNode() {
    Map<String, Set<String>> byNode = new TreeMap<>();
    executors.values().forEach(e -> byNode.computeIfAbsent(e.cacheHost(), n -> new TreeSet<>()).add(e.host()));
    return byNode;
  }

  private synchronized NodeListMessages.Answer nodeList() {
    return new NodeListMessages.Answer(version, hosts());
  }

  private synchronized void publish() {
    List<String> hosts = hosts();
    version++;
    hadoopConf.set(NODES_KEY, String.join(",", hosts));
    String executorHosts = ExecutorHosts.format(executorsByNode());
    if (executorHosts == null) {
      hadoopConf.unset(ExecutorHosts.KEY);
    } else {
      hadoopConf.set(ExecutorHosts.KEY, executorHosts);
    }
    if (nodesFile != null) {
      try {
        NodeListFile.write(nodesFile, hosts);
      } catch (IOException e) {
        LOG.warn("Could not write the RubiX executor host list to {}", nodesFile, e);
      }
    }
  }
}
