package io.rubix.spark.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.stats.CacheCounter;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spark.RubixPlugin;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.testing.ChildJvmSupport;
import java.io.IOException;
import java.io.Serializable;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * A {@link StandaloneCluster} whose executors each run their node's BookKeeper through
 * {@link RubixPlugin}, and the driver's session on it in this JVM, reading {@link TpcdsOnS3}'s tables
 * through {@link CachingS3AFileSystem}. The executor list is the cluster ({@code spark.rubix.nodes.file});
 * per-node settings (cache directory, bind addresses, node id) come from each Worker's environment
 * through {@code ${env.RUBIX_NODE}}, only because all nodes share one machine. Every node's BookKeeper
 * serves its metrics on the same port of its own address.
 */
final class RubixSparkCluster implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final String DRIVER_HOST = "127.0.0.1";

  private final Path dir;
  private final TpcdsOnS3 data;
  private final StandaloneCluster cluster;
  private final int metricsPort;
  private final boolean rubix;
  private SparkSession spark;

  private RubixSparkCluster(Path dir, TpcdsOnS3 data, StandaloneCluster cluster, int metricsPort, boolean rubix) {
    this.dir = dir;
    this.data = data;
    this.cluster = cluster;
    this.metricsPort = metricsPort;
    this.rubix = rubix;
  }

  /**
   * Starts {@code nodes} Workers under {@code dir} and the driver's session with {@code hadoop} (Hadoop
   * keys, without {@code spark.hadoop.}) over the defaults; returns once {@link #awaitExecutors()} does.
   */
  static RubixSparkCluster start(Path dir, TpcdsOnS3 data, int nodes, Map<String, String> hadoop) throws IOException {
    return start(dir, data, nodes, hadoop, Map.of(), true);
  }

  /**
   * As {@link #start(Path, TpcdsOnS3, int, Map)}, with {@code spark} (Spark keys) over the session's
   * defaults; without {@code rubix}, the session has no {@link RubixPlugin} and the executors no
   * BookKeeper (what a plain Spark user runs: {@code hadoop} then names the file systems), and
   * {@link #awaitExecutors()} only waits for one executor per node.
   */
  static RubixSparkCluster start(Path dir, TpcdsOnS3 data, int nodes, Map<String, String> hadoop, Map<String, String> spark, boolean rubix)
      throws IOException {
    requireNonNull(data, "data is null");
    requireNonNull(hadoop, "hadoop is null");
    requireNonNull(spark, "spark is null");
    Path rubixJar = Path.of(ChildJvmSupport.requiredProperty("rubix.spark.jar", "rubix-spark"));
    int metricsPort = freePort();
    StandaloneCluster cluster = StandaloneCluster.start(dir.resolve("cluster"), rubixJar, nodes);
    RubixSparkCluster started = new RubixSparkCluster(dir, data, cluster, metricsPort, rubix);
    try {
      started.spark = started.session(hadoop, spark);
      started.awaitExecutors();
      return started;
    } catch (IOException | RuntimeException e) {
      started.close();
      throw e;
    }
  }

  /** Deletes {@code dir} (a previous run's logs) and creates it empty; a run's logs stay after it. */
  static Path emptyDirectory(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> old = Files.walk(dir)) {
        old.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    return Files.createDirectories(dir);
  }

  SparkSession spark() {
    return spark;
  }

  StandaloneCluster nodes() {
    return cluster;
  }

  /**
   * Waits until the executors run on exactly the cluster's running nodes (one each), the split owners
   * the driver reports for the tables' files span those nodes, and every executor's caching file
   * system holds them as the cluster.
   */
  void awaitExecutors() throws IOException {
    Set<String> nodes = new HashSet<>(cluster.addresses());
    List<FileStatus> files = List.copyOf(data.files(spark.sessionState().newHadoopConf()));
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    Set<String> owners = Set.of();
    List<String> executors = List.of();
    Map<String, Set<String>> views = Map.of();
    while (System.nanoTime() < deadline) {
      executors = executorHosts();
      if (!rubix) {
        if (executors.size() == nodes.size() && nodes.containsAll(executors)) {
          return;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        continue;
      }
      owners = new HashSet<>(splitOwners(files).values());
      if (owners.equals(nodes) && executors.size() == nodes.size() && nodes.containsAll(executors)) {
        views = executorViews();
        if (views.values().stream().allMatch(nodes::equals)) {
          return;
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }
    throw new IllegalStateException("Split owners " + owners + ", executors " + executors + " and their views " + views
        + " never matched the nodes " + nodes + " (the driver's list: " + spark.sparkContext().hadoopConfiguration().get("rubix.cluster.nodes")
        + "; logs under " + dir + ")");
  }

  /** The hosts of the executors the driver knows, one per executor, without the driver. */
  List<String> executorHosts() {
    List<String> hosts = new ArrayList<>();
    for (SparkExecutorInfo executor : spark.sparkContext().statusTracker().getExecutorInfos()) {
      if (!executor.host().equals(DRIVER_HOST)) {
        hosts.add(executor.host());
      }
    }
    return hosts;
  }

  /**
   * The owner the driver reports for every split of {@code files} ({@code getFileBlockLocations}, its
   * first host; no I/O), keyed by {@code path@offset}.
   */
  Map<String, String> splitOwners(List<? extends FileStatus> files) throws IOException {
    Map<String, String> owners = new TreeMap<>();
    Configuration conf = spark.sessionState().newHadoopConf();
    for (FileStatus file : files) {
      FileSystem fs = file.getPath().getFileSystem(conf);
      for (BlockLocation split : fs.getFileBlockLocations(file, 0, file.getLen())) {
        String[] hosts = split.getHosts();
        owners.put(file.getPath() + "@" + split.getOffset(), hosts.length == 0 ? "" : hosts[0]);
      }
    }
    return owners;
  }

  /** One scrape of the metrics of the BookKeeper on {@code node}. */
  NodeMetrics scrape(String node) throws IOException {
    return NodeMetrics.scrape(node, metricsPort);
  }

  /** One scrape of every running node's BookKeeper metrics, in the order of {@link StandaloneCluster#addresses()}. */
  List<NodeMetrics> scrapeNodes() throws IOException {
    List<NodeMetrics> metrics = new ArrayList<>();
    for (String address : cluster.addresses()) {
      metrics.add(scrape(address));
    }
    return metrics;
  }

  /**
   * Each running node's executor counters (its caching file system's, read in the executor): what its
   * readers took from the local cache, from peers and from S3.
   */
  Map<String, Map<String, Long>> executorCounters() {
    return onEachNode(fs -> new HashMap<>(fs.cacheEngine().stats().snapshot()));
  }

  /** The nodes each running node's executor holds as the cluster (its caching file system's view). */
  Map<String, Set<String>> executorViews() {
    return onEachNode(fs -> new HashSet<>(fs.clusterLocality().view().nodes().stream().map(ClusterNode::host).toList()));
  }

  /**
   * Empties every running node's cache (its BookKeeper drops every object version it holds) and
   * closes the executors' file systems, so that the next query starts cold with new ones.
   */
  Map<String, Integer> clearCaches() {
    return onEachExecutor(conf -> {
      int dropped = ((CacheAdministration) fileSystem(conf).cacheEngine().service()).clear();
      FileSystem.closeAll();
      return dropped;
    });
  }

  /** Closes every running node's executor file systems: the next query's tasks get new instances. */
  void closeExecutorFileSystems() {
    onEachExecutor(conf -> {
      FileSystem.closeAll();
      return Boolean.TRUE;
    });
  }

  /** What an executor reads from its s3a caching file system; runs in the executor. */
  @FunctionalInterface
  interface ExecutorProbe<T> extends Serializable {
    T read(CachingS3AFileSystem fs) throws IOException;
  }

  /** What runs in an executor, given the session's Hadoop settings. */
  @FunctionalInterface
  interface ExecutorTask<T> extends Serializable {
    T run(Configuration conf) throws IOException;
  }

  private <T> Map<String, T> onEachNode(ExecutorProbe<T> probe) {
    return onEachExecutor(conf -> probe.read(fileSystem(conf)));
  }

  /**
   * Runs {@code task} in each running node's executor, by one task per node placed there by
   * preference (tried again when one ran elsewhere), and returns the answers by node.
   */
  private <T> Map<String, T> onEachExecutor(ExecutorTask<T> task) {
    List<String> nodes = cluster.addresses();
    // the session's settings (the driver plugin's among them): an executor that has no file system yet makes the one its tasks get
    SerializableConfiguration conf = new SerializableConfiguration(spark.sessionState().newHadoopConf());
    for (int attempt = 0; attempt < 5; attempt++) {
      List<Tuple2<String, scala.collection.immutable.Seq<String>>> placed = new ArrayList<>();
      nodes.forEach(node -> placed.add(new Tuple2<>(node, CollectionConverters.asScala(List.of(node)).toList())));
      List<Tuple2<String, T>> answers = spark.sparkContext()
          .makeRDD(CollectionConverters.asScala(placed).toList(), ClassTag$.MODULE$.apply(String.class))
          .toJavaRDD().map(node -> new Tuple2<>(SparkEnv.get().blockManager().blockManagerId().host(), task.run(conf.value()))).collect();
      Map<String, T> byNode = new LinkedHashMap<>();
      for (int i = 0; i < nodes.size(); i++) {
        if (answers.get(i)._1().equals(nodes.get(i))) {
          byNode.put(nodes.get(i), answers.get(i)._2());
        }
      }
      if (byNode.size() == nodes.size()) {
        return byNode;
      }
    }
    throw new IllegalStateException("Probe tasks did not run on their nodes " + nodes);
  }

  private static CachingS3AFileSystem fileSystem(Configuration conf) throws IOException {
    return (CachingS3AFileSystem) FileSystem.get(URI.create("s3a://" + TpcdsOnS3.BUCKET + "/"), conf);
  }

  /** The counters of the driver's caching file system so far. */
  long driverCounter(CacheCounter counter) throws IOException {
    return fileSystem(spark.sessionState().newHadoopConf()).cacheEngine().stats().get(counter);
  }

  private SparkSession session(Map<String, String> overrides, Map<String, String> sparkOverrides) throws IOException {
    String node = "${env." + SparkNode.NODE_ENV + ":-" + DRIVER_HOST + "}";
    Map<String, String> hadoop = new LinkedHashMap<>(data.server().s3aSettings());
    hadoop.put("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    hadoop.put("rubix.cache.dirs", dir.resolve("cache").toString() + "/" + node);
    hadoop.put("rubix.cluster.node.id", node);
    hadoop.put("rubix.network.bookkeeper.host", node);
    hadoop.put("rubix.network.bookkeeper.bind.address", node);
    hadoop.put("rubix.network.bookkeeper.server.port", Integer.toString(freePort()));
    hadoop.put("rubix.network.transfer.bind.address", node);
    hadoop.put("rubix.network.transfer.server.port", Integer.toString(freePort()));
    hadoop.put("rubix.network.transfer.secret", "cluster-it-secret");
    hadoop.put("rubix.network.transfer.fetch.allowed.authorities", TpcdsOnS3.BUCKET);
    hadoop.put("rubix.bookkeeper.metrics.port", Integer.toString(metricsPort));
    hadoop.put("rubix.bookkeeper.metrics.bind.address", node);
    hadoop.put("rubix.cluster.refresh.interval", "1s");
    hadoop.putAll(overrides);
    SparkSession.Builder builder = SparkSession.builder().master(cluster.masterUrl()).appName("rubix-cluster")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", DRIVER_HOST)
        .config("spark.driver.bindAddress", DRIVER_HOST)
        .config("spark.executor.memory", "768m")
        .config("spark.executor.cores", "1")
        .config("spark.sql.shuffle.partitions", "2")
        // this package's classes, for the tasks that read each executor's counters
        .config("spark.jars", ChildJvmSupport.requiredProperty("rubix.spark.tests.jar", "rubix-spark"));
    if (rubix) {
      builder.config("spark.plugins", RubixPlugin.class.getName()).config("spark.rubix.nodes.file", dir.resolve("nodes.txt").toString());
    }
    hadoop.forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    sparkOverrides.forEach(builder::config);
    return builder.getOrCreate();
  }

  /**
   * A port free on every address now and outside the kernel's ephemeral range, so that no socket bound
   * to port 0 meanwhile (a Worker's web UI, a client's connection) takes it before the BookKeeper binds
   * it (a scrape of the metrics port once got a Worker's HTML page).
   */
  private static int freePort() throws IOException {
    int below = ephemeralLow();
    for (int attempt = 0; attempt < 100 && below > 10_000; attempt++) {
      int port = 10_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(below - 10_000);
      try (ServerSocket socket = new ServerSocket(port)) {
        return socket.getLocalPort();
      } catch (IOException taken) {
        // another one
      }
    }
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** The lowest port the kernel hands out for port 0 (Linux; 49152, IANA's, elsewhere). */
  private static int ephemeralLow() {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    try {
      return Files.exists(range) ? Integer.parseInt(Files.readString(range).trim().split("\\s+")[0]) : 49_152;
    } catch (IOException | NumberFormatException e) {
      return 49_152;
    }
  }

  /** Stops the session, closes the driver's file systems (a next session must not get them) and the cluster. */
  @Override
  public void close() {
    try {
      if (spark != null) {
        spark.stop();
      }
      FileSystem.closeAll();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      cluster.close();
    }
  }
}
