package io.rubix.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spark.RubixPlugin;
import io.rubix.spark.testing.TpcdsData;
import io.rubix.spark.testing.TpcdsQueries;
import io.rubix.testing.ChildJvmSupport;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.SerializableConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * Spark's own scheduler placing tasks by RubiX's block locations on a standalone cluster of two nodes
 * (a Master and two Workers on 127.0.0.2-3 from Spark's jars, the shaded RubiX jar in {@code jars/},
 * each executor running the node's BookKeeper through {@link RubixPlugin}), reading TPC-DS ORC tables
 * of several small files from an S3 server: answers equal direct S3A; the cold pass fetches each byte
 * from S3 once for the whole cluster; on the warm pass S3 sends nothing, scan tasks run on the node
 * their files' owner, and their bytes come from that node's own cache, not from its peer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkClusterIT {
  private static final double SCALE = 0.01;
  private static final String BUCKET = "tpcds";
  private static final int NODES = 2;
  /** Files per table: smaller than a task, so Spark packs several into each. */
  private static final Map<String, Integer> TABLES = Map.of("store_sales", 8, "item", 4, "date_dim", 2);
  private static final List<String> QUERIES = List.of("q3", "q42", "q55");
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  /** Kept after the run (logs of every process are under it); emptied when the next run starts. */
  private static final Path temp = Path.of("target", "spark-cluster-it").toAbsolutePath();
  private S3ServerProcess server;
  private StandaloneCluster cluster;
  private SparkSession spark;
  private List<List<String>> direct;
  private long directInputBytes;
  private int metricsPort;
  private final List<SparkListenerTaskEnd> tasks = new ArrayList<>();

  @BeforeAll
  void start() throws IOException, TimeoutException {
    if (Files.exists(temp)) {
      try (Stream<Path> old = Files.walk(temp)) {
        old.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    Files.createDirectories(temp);
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET, "--dir", temp.resolve("s3").toString()));
    Path rubixJar = Path.of(ChildJvmSupport.requiredProperty("rubix.spark.jar", "rubix-spark"));
    cluster = StandaloneCluster.start(temp.resolve("cluster"), rubixJar, NODES);
    writeTablesAndAnswerDirectly();
    spark = clusterSession();
    awaitExecutors();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void tasksRunWhereTheirBytesAreCachedAndEachByteIsFetchedOnce() throws IOException, TimeoutException {
    server.reset();
    Pass cold = pass();
    Pass warm = pass();
    // Spark's own packing of small files into tasks, for comparison: tasks still labelled node-local
    spark.conf().set("spark.rubix.locality.packing", "false");
    Pass bySize;
    try {
      bySize = pass();
    } finally {
      spark.conf().unset("spark.rubix.locality.packing");
    }

    long coldS3 = cold.s3.bytes();
    long cached = warm.sum("rubix_cache_used_bytes");
    String figures = "nodes=" + NODES + " coldS3Bytes=" + coldS3 + " cachedBytes=" + cached + " cachedMaxOverMean="
        + String.format("%.2f", warm.maxOverMean("rubix_cache_used_bytes")) + " directInputBytes=" + directInputBytes + " "
        + cold.figures("cold") + " " + warm.figures("warm") + " " + bySize.figures("sparkPacking");
    System.err.println("cluster-locality: " + figures);

    assertThat(cold.answers).as(figures).isEqualTo(direct);
    assertThat(warm.answers).as(figures).isEqualTo(direct);
    // each block fetched from S3 once for the cluster: S3 sent no more than the nodes cached
    assertThat(coldS3).as(figures).isPositive().isLessThanOrEqualTo((long) (cached * 1.05));
    assertThat(warm.s3.gets()).as(figures).isZero();
    // by label and by bytes: tasks run on their files' owner and read from its cache
    assertThat(warm.nodeLocal).as(figures).isGreaterThanOrEqualTo((int) Math.ceil(warm.scanTasks * 0.95));
    assertThat(warm.localByteShare()).as(figures).isGreaterThanOrEqualTo(0.9);
    assertThat(bySize.answers).as(figures).isEqualTo(direct);
    assertThat(bySize.localByteShare()).as("Spark's packing mixes owners in a task: " + figures).isLessThan(0.9);
    // Spark's input metrics: the bytes the scan read, wherever they came from (on the warm pass, the
    // executors' cache hits byte for byte); at least what plain S3A reports (its vectored reads, which
    // ORC reads stripes with, count in no task's thread)
    assertThat(warm.inputBytes).as(figures).isEqualTo(warm.executor(CacheCounter.HIT_BYTES)).isGreaterThanOrEqualTo(directInputBytes);
    assertThat(cold.inputBytes).as(figures).isBetween(warm.inputBytes * 9 / 10, warm.inputBytes);
  }

  /** What one pass of the queries read and from where. */
  private final class Pass {
    final List<List<String>> answers;
    final S3ServerControl.Counters s3;
    final List<NodeMetrics> before;
    final List<NodeMetrics> after;
    final long inputBytes;
    final long peerBytes;
    final long driverPeerBytes;
    /** What the executors' caching file systems counted during the pass. */
    final Map<String, Long> executors;
    final int scanTasks;
    final int nodeLocal;

    Pass(List<List<String>> answers, S3ServerControl.Counters s3, List<NodeMetrics> before, List<NodeMetrics> after,
        List<SparkListenerTaskEnd> ended, long driverPeerBytes, Map<String, Long> executorsBefore, Map<String, Long> executorsAfter) {
      this.answers = answers;
      this.s3 = s3;
      this.before = before;
      this.after = after;
      long input = 0;
      int scans = 0;
      int local = 0;
      for (SparkListenerTaskEnd task : ended) {
        long read = task.taskMetrics() == null ? 0 : task.taskMetrics().inputMetrics().bytesRead();
        if (read > 0) {
          input += read;
          scans++;
          String level = task.taskInfo().taskLocality().toString();
          if (level.equals("NODE_LOCAL") || level.equals("PROCESS_LOCAL")) {
            local++;
          }
        }
      }
      this.inputBytes = input;
      this.scanTasks = scans;
      this.nodeLocal = local;
      this.driverPeerBytes = driverPeerBytes;
      this.executors = new HashMap<>();
      executorsAfter.forEach((name, value) -> executors.put(name, value - executorsBefore.getOrDefault(name, 0L)));
      this.peerBytes = executor(CacheCounter.PEER_BYTES);
    }

    long delta(String metric) {
      long total = 0;
      for (int i = 0; i < after.size(); i++) {
        total += after.get(i).get(metric) - before.get(i).get(metric);
      }
      return total;
    }

    long sum(String metric) {
      return after.stream().mapToLong(m -> m.get(metric)).sum();
    }

    double maxOverMean(String metric) {
      long max = after.stream().mapToLong(m -> m.get(metric)).max().orElse(0);
      return max / (sum(metric) / (double) after.size());
    }

    String figures(String pass) {
      return String.format("%1$sGets=%2$d %1$sS3Bytes=%3$d %1$sScanTasks=%4$d %1$sNodeLocal=%5$d %1$sInputBytes=%6$d "
          + "%1$sPeerBytes=%7$d %1$sHitBytes=%11$d %1$sLocalByteShare=%8$.3f %1$sDriverPeerBytes=%9$d %1$sTransferBytes=%10$d", pass, s3.gets(), s3.bytes(),
          scanTasks, nodeLocal, inputBytes, peerBytes, localByteShare(), driverPeerBytes, delta("rubix_transfer_bytes_served"), executor(CacheCounter.HIT_BYTES));
    }

    long executor(CacheCounter counter) {
      return executors.getOrDefault(counter.statisticName(), 0L);
    }

    /**
     * The share of the scan's bytes (Spark's input bytes: every byte its readers got, counted once)
     * that did not come from a peer's cache (each executor's cache counts those it took from peers).
     */
    double localByteShare() {
      return inputBytes == 0 ? 0 : 1 - peerBytes / (double) inputBytes;
    }
  }

  private Pass pass() throws IOException, TimeoutException {
    List<NodeMetrics> before = scrapeNodes();
    long driverPeerBytes = driverPeerBytes();
    Map<String, Long> executorsBefore = executorTotals();
    spark.sparkContext().listenerBus().waitUntilEmpty();
    synchronized (tasks) {
      tasks.clear();
    }
    List<List<String>> answers = run(spark);
    spark.sparkContext().listenerBus().waitUntilEmpty();
    S3ServerControl.Counters s3 = server.reset();
    List<SparkListenerTaskEnd> ended;
    synchronized (tasks) {
      ended = List.copyOf(tasks);
    }
    return new Pass(answers, s3, before, scrapeNodes(), ended, driverPeerBytes() - driverPeerBytes, executorsBefore, executorTotals());
  }

  /**
   * Each executor's own counters (its caching file system's, read in the executor): what its readers
   * took from the local cache, from peers and from S3. One task per node, placed there by preference.
   */
  private Map<String, Map<String, Long>> executorCounters() {
    List<String> nodes = cluster.addresses();
    // the session's settings (the driver plugin's among them): an executor that has no file system yet makes the one its tasks get
    SerializableConfiguration conf = new SerializableConfiguration(spark.sessionState().newHadoopConf());
    for (int attempt = 0; attempt < 5; attempt++) {
      List<Tuple2<String, scala.collection.immutable.Seq<String>>> placed = new ArrayList<>();
      nodes.forEach(node -> placed.add(new Tuple2<>(node, CollectionConverters.asScala(List.of(node)).toList())));
      List<Map<String, Long>> counters = spark.sparkContext()
          .makeRDD(CollectionConverters.asScala(placed).toList(), ClassTag$.MODULE$.apply(String.class))
          .toJavaRDD().map(node -> countersHere(conf, node)).collect();
      Map<String, Map<String, Long>> byNode = new LinkedHashMap<>();
      for (int i = 0; i < nodes.size(); i++) {
        if (counters.get(i).containsKey("host@" + nodes.get(i))) {
          byNode.put(nodes.get(i), counters.get(i));
        }
      }
      if (byNode.size() == nodes.size()) {
        return byNode;
      }
    }
    throw new IllegalStateException("Counter tasks did not run on their nodes");
  }

  /** Runs in an executor: its s3a caching file system's counters, and {@code host@<this executor's host>}. */
  private static Map<String, Long> countersHere(SerializableConfiguration conf, String node) throws IOException {
    String host = SparkEnv.get().blockManager().blockManagerId().host();
    FileSystem fs = FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf.value());
    Map<String, Long> counters = new HashMap<>(((CachingS3AFileSystem) fs).cacheEngine().stats().snapshot());
    counters.put("host@" + host, 1L);
    return counters;
  }

  /** The executors' counters so far, summed over the nodes. */
  private Map<String, Long> executorTotals() {
    Map<String, Long> totals = new HashMap<>();
    executorCounters().values().forEach(counters -> counters.forEach((name, value) -> totals.merge(name, value, Long::sum)));
    return totals;
  }

  /** The bytes the driver's caching file system read from owners' caches so far. */
  private long driverPeerBytes() throws IOException {
    FileSystem fs = new org.apache.hadoop.fs.Path(path("item")).getFileSystem(spark.sessionState().newHadoopConf());
    return ((CachingS3AFileSystem) fs).cacheEngine().stats().get(CacheCounter.PEER_BYTES);
  }

  private List<NodeMetrics> scrapeNodes() throws IOException {
    List<NodeMetrics> metrics = new ArrayList<>();
    for (String address : cluster.addresses()) {
      metrics.add(NodeMetrics.scrape(address, metricsPort));
    }
    return metrics;
  }

  /** Writes the tables through plain S3A and answers the queries from them, in a local session. */
  private void writeTablesAndAnswerDirectly() throws IOException, TimeoutException {
    SparkSession.Builder builder = SparkSession.builder().master("local[2]").appName("rubix-cluster-data")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2");
    server.s3aSettings().forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    SparkSession local = builder.getOrCreate();
    AtomicLong input = new AtomicLong();
    local.sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
        if (taskEnd.taskMetrics() != null) {
          input.addAndGet(taskEnd.taskMetrics().inputMetrics().bytesRead());
        }
      }
    });
    try {
      TABLES.forEach((table, files) ->
          TpcdsData.table(local, table, SCALE).repartition(files).write().mode(SaveMode.Overwrite).orc(path(table)));
      local.sparkContext().listenerBus().waitUntilEmpty();
      input.set(0);
      direct = run(local);
      local.sparkContext().listenerBus().waitUntilEmpty();
      directInputBytes = input.get();
    } finally {
      local.stop();
      // the cluster session's driver must not get this session's plain S3A instances
      FileSystem.closeAll();
    }
  }

  private SparkSession clusterSession() throws IOException {
    String node = "${env." + SparkNode.NODE_ENV + ":-127.0.0.1}";
    metricsPort = freePort();
    Map<String, String> hadoop = new LinkedHashMap<>(server.s3aSettings());
    hadoop.put("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    hadoop.put("rubix.cache.dirs", temp.resolve("cache").toString() + "/" + node);
    hadoop.put("rubix.cluster.node.id", node);
    hadoop.put("rubix.network.bookkeeper.host", node);
    hadoop.put("rubix.network.bookkeeper.bind.address", node);
    hadoop.put("rubix.network.bookkeeper.server.port", Integer.toString(freePort()));
    hadoop.put("rubix.network.transfer.bind.address", node);
    hadoop.put("rubix.network.transfer.server.port", Integer.toString(freePort()));
    hadoop.put("rubix.network.transfer.secret", "cluster-it-secret");
    hadoop.put("rubix.network.transfer.fetch.allowed.authorities", BUCKET);
    hadoop.put("rubix.bookkeeper.metrics.port", Integer.toString(metricsPort));
    hadoop.put("rubix.bookkeeper.metrics.bind.address", node);
    hadoop.put("rubix.cluster.refresh.interval", "1s");
    SparkSession.Builder builder = SparkSession.builder().master(cluster.masterUrl()).appName("rubix-cluster")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.executor.memory", "768m")
        .config("spark.executor.cores", "1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.plugins", RubixPlugin.class.getName())
        // this class, for the tasks that read each executor's counters
        .config("spark.jars", ChildJvmSupport.requiredProperty("rubix.spark.tests.jar", "rubix-spark"))
        .config("spark.rubix.nodes.file", temp.resolve("nodes.txt").toString());
    hadoop.forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    SparkSession session = builder.getOrCreate();
    session.sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
        synchronized (tasks) {
          tasks.add(taskEnd);
        }
      }
    });
    return session;
  }

  /** Waits until every node's executor registered and the driver's split owners of the tables' files span all nodes. */
  private void awaitExecutors() throws IOException {
    Set<String> nodes = new HashSet<>(cluster.addresses());
    Configuration conf = spark.sessionState().newHadoopConf();
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    Set<String> owners = new HashSet<>();
    while (System.nanoTime() < deadline) {
      owners.clear();
      for (String table : TABLES.keySet()) {
        org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(path(table));
        RemoteIterator<LocatedFileStatus> files = dir.getFileSystem(conf).listFiles(dir, false);
        while (files.hasNext()) {
          for (BlockLocation block : files.next().getBlockLocations()) {
            owners.addAll(List.of(block.getHosts()));
          }
        }
      }
      if (owners.equals(nodes) && spark.sparkContext().statusTracker().getExecutorInfos().length == NODES + 1) {
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
    }
    throw new IllegalStateException("Split owners " + owners + " never spanned the nodes " + nodes + " (executors "
        + spark.sparkContext().statusTracker().getExecutorInfos().length + ", the driver's list: "
        + spark.sparkContext().hadoopConfiguration().get("rubix.cluster.nodes") + "; logs under " + temp + ")");
  }

  private static List<List<String>> run(SparkSession session) {
    TABLES.keySet().forEach(table -> session.read().orc(path(table)).createOrReplaceTempView(table));
    return QUERIES.stream().map(q -> rows(session.sql(TpcdsQueries.text(q)))).toList();
  }

  private static List<String> rows(Dataset<Row> data) {
    return data.collectAsList().stream().map(Row::toString).toList();
  }

  private static String path(String table) {
    return "s3a://" + BUCKET + "/orc/" + table;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
