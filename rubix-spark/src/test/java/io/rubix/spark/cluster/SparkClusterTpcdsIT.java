package io.rubix.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3ServerControl;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The TPC-DS benchmark's configurations on a standalone cluster of three nodes ({@link RubixSparkCluster}:
 * a Master and three Workers of one core each; with RubiX, each executor runs its node's BookKeeper):
 * the benchmark's 22 queries over ORC tables on an S3 server with its latency model (30 ms before the
 * first byte of every GET and before every HEAD and LIST answer, 100 MB/s per connection).
 *
 * <p>Each configuration runs in a Spark application of its own on a cluster of its own (new Master,
 * Workers, executors and BookKeepers), in an order shuffled with a printed seed: the first query once
 * untimed, warm configurations one untimed pass, then {@code rubix.tpcds.iterations} timed passes.
 * Direct streams and {@code local-file} start every query with new file system instances in the driver
 * and the executors; {@code rubix-cold} empties every node's cache before every query. The report gives
 * each configuration's total (median and min-max over the passes), its speed-up over the fastest direct
 * stream and its ratio to {@code local-file} (the same files on local disk: the limit), what S3 answered
 * per pass, and for RubiX the locality figures of {@link SparkClusterIT}. Speed is reported, not asserted;
 * asserted are answers equal to {@code s3a-classic}'s (and to direct S3A's in local mode), 0 GETs on warm
 * passes, and cold bytes from S3 at most 1.05 x what the nodes cached of them.
 *
 * <p>The configurations are the benchmark's ({@code benchmarks-tpcds}'s {@code BenchmarkConfiguration},
 * the same keys): that module depends on this one's test jar, so this one cannot use its classes.
 *
 * <p>Opt-in for its time: {@code -Dit.test=SparkClusterTpcdsIT}, with {@code -Drubix.tpcds.scale=0.1},
 * {@code -Drubix.tpcds.iterations=3}, {@code -Drubix.tpcds.seed=N} and {@code -Drubix.tpcds.configs=a,b}
 * (docs/spark.md). The figures end stderr as one {@code cluster-tpcds:} line and a Markdown table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkClusterTpcdsIT {
  private static final int NODES = 3;
  private static final double SCALE = Double.parseDouble(System.getProperty("rubix.tpcds.scale", "0.1"));
  private static final int ITERATIONS = Integer.getInteger("rubix.tpcds.iterations", 3);
  private static final long LATENCY_MS = 30;
  private static final long BANDWIDTH = 100_000_000;
  /** The benchmark's queries (BenchmarkOptions.DEFAULT_QUERIES). */
  private static final List<String> QUERIES = List.of("q3", "q12", "q15", "q19", "q20", "q34", "q36", "q42", "q43", "q46", "q52",
      "q53", "q55", "q59", "q63", "q65", "q68", "q73", "q79", "q89", "q96", "q98");
  /** The tables the queries read, in files enough that every node owns some of the large ones. */
  private static final Map<String, Integer> TABLES = Map.of("store_sales", 12, "catalog_sales", 6, "web_sales", 6, "customer", 3,
      "customer_address", 3, "date_dim", 3, "item", 3, "time_dim", 2, "household_demographics", 1, "store", 1);

  /** How a configuration reads the tables (the benchmark's settings of the same name). */
  enum Reading { DIRECT, COLD, WARM, LOCAL }

  record Config(String label, Reading reading, Map<String, String> hadoop) {
    boolean rubix() {
      return reading == Reading.COLD || reading == Reading.WARM;
    }
  }

  private static final List<Config> CONFIGS = List.of(
      new Config("s3a-classic", Reading.DIRECT, Map.of("fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem", "fs.s3a.input.stream.type", "classic")),
      new Config("s3a-analytics", Reading.DIRECT, Map.of("fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem", "fs.s3a.input.stream.type", "analytics")),
      new Config("rubix-cold", Reading.COLD, Map.of()),
      new Config("rubix-warm", Reading.WARM, Map.of()),
      new Config("rubix-warm-ttl", Reading.WARM, Map.of("rubix.cache.freshness", "ttl")),
      new Config("rubix-warm-rules", Reading.WARM, Map.of("rubix.cache.rules", "spark_parts", "rubix.cache.rule.spark_parts.paths", "/**/part-*",
          "rubix.cache.rule.spark_parts.freshness", "immutable")),
      new Config("local-file", Reading.LOCAL, Map.of("fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem", "fs.s3a.input.stream.type", "classic",
          "fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")));

  /** Kept after the run (logs of every process are under it); emptied when the next run starts. */
  private static final Path temp = Path.of("target", "spark-cluster-tpcds-it").toAbsolutePath();
  private TpcdsOnS3 data;
  private long tableBytes;

  @BeforeAll
  void start() throws IOException, TimeoutException {
    RubixSparkCluster.emptyDirectory(temp);
    data = TpcdsOnS3.start(temp, SCALE, TABLES, QUERIES);
    Configuration conf = new Configuration();
    data.server().s3aSettings().forEach(conf::set);
    conf.set("fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    for (LocatedFileStatus file : data.files(conf)) {
      tableBytes += file.getLen();
    }
    FileSystem local = FileSystem.get(java.net.URI.create("file:///"), conf);
    for (String table : data.tables()) {
      org.apache.hadoop.fs.Path source = new org.apache.hadoop.fs.Path(TpcdsOnS3.path(table));
      FileUtil.copy(source.getFileSystem(conf), source, local, new org.apache.hadoop.fs.Path(localPath(table)), false, conf);
    }
    FileSystem.closeAll();
    data.server().control().settings(LATENCY_MS, LATENCY_MS, BANDWIDTH);
  }

  @AfterAll
  void stop() {
    if (data != null) {
      data.close();
    }
  }

  private static String localPath(String table) {
    return "file://" + temp.resolve("local").resolve(table);
  }

  @Test
  void tpcdsOnThreeNodes() throws IOException, TimeoutException {
    long started = System.nanoTime();
    List<String> selected = List.of(System.getProperty("rubix.tpcds.configs", String.join(",", CONFIGS.stream().map(Config::label).toList())).split(","));
    List<Config> order = new ArrayList<>(CONFIGS.stream().filter(c -> selected.contains(c.label())).toList());
    long seed = Long.getLong("rubix.tpcds.seed", new Random().nextLong());
    Collections.shuffle(order, new Random(seed));
    System.err.println("cluster-tpcds order (seed " + seed + "): " + order.stream().map(Config::label).toList());

    Map<String, Run> runs = new LinkedHashMap<>();
    for (Config config : order) {
      long start = System.nanoTime();
      Run run = run(config);
      runs.put(config.label(), run);
      System.err.printf(Locale.ROOT, "cluster-tpcds [%s] %d s, passes %s ms%n", config.label(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
          run.passes().stream().map(Pass::millis).toList());
    }

    List<Config> reported = CONFIGS.stream().filter(c -> runs.containsKey(c.label())).toList();
    Config fastestDirect = reported.stream().filter(c -> c.reading() == Reading.DIRECT)
        .min((a, b) -> Long.compare(runs.get(a.label()).median(), runs.get(b.label()).median())).orElse(null);
    Run limit = runs.get("local-file");
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "scale=%s nodes=%d iterations=%d seed=%d queries=%d tableBytes=%d fastestDirect=%s",
        SCALE, NODES, ITERATIONS, seed, QUERIES.size(), tableBytes, fastestDirect == null ? "none" : fastestDirect.label()));
    StringBuilder table = new StringBuilder("| configuration | total ms, median (min-max) | speed-up over " + (fastestDirect == null ? "-" : fastestDirect.label())
        + " | vs local-file | GETs | HEADs | MB from S3 | scan tasks NODE_LOCAL | bytes from the task's own node | cold S3 bytes an owner fetched for a peer |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Config config : reported) {
      Run run = runs.get(config.label());
      String label = config.label();
      double speedUp = fastestDirect == null ? Double.NaN : runs.get(fastestDirect.label()).median() / (double) run.median();
      double vsLimit = limit == null ? Double.NaN : run.median() / (double) limit.median();
      line.append(String.format(Locale.ROOT, " %1$s.ms=%2$d %1$s.minMs=%3$d %1$s.maxMs=%4$d %1$s.speedUp=%5$.2f %1$s.vsLocal=%6$.2f %1$s.gets=%7$d"
          + " %1$s.heads=%8$d %1$s.s3Bytes=%9$d", label, run.median(), run.min(), run.max(), speedUp, vsLimit, run.medianOf(p -> p.s3().gets()),
          run.medianOf(p -> p.s3().heads()), run.medianOf(p -> p.s3().bytes())));
      String locality = "";
      String ownBytes = "";
      String peerFill = "";
      if (config.rubix()) {
        line.append(String.format(Locale.ROOT, " %1$s.scanTasks=%2$d %1$s.nodeLocal=%3$d %1$s.nodeLocalShare=%4$.3f %1$s.inputBytes=%5$d %1$s.peerBytes=%6$d"
            + " %1$s.localByteShare=%7$.3f %1$s.peerFillSourceBytes=%8$d %1$s.peerFillShare=%9$.3f %1$s.transferBytes=%10$d %1$s.cachedBytes=%11$d",
            label, run.sum(Pass::scanTasks), run.sum(Pass::nodeLocal), run.nodeLocalShare(), run.sum(Pass::inputBytes), run.sum(Pass::peerBytes),
            run.localByteShare(), run.sum(Pass::peerFillSourceBytes), run.peerFillShare(), run.sum(Pass::transferBytes), run.sum(Pass::cachedBytes)));
        locality = String.format(Locale.ROOT, "%.1f %%", 100 * run.nodeLocalShare());
        ownBytes = String.format(Locale.ROOT, "%.1f %%", 100 * run.localByteShare());
        peerFill = config.reading() == Reading.COLD ? String.format(Locale.ROOT, "%.1f %%", 100 * run.peerFillShare()) : "";
      }
      table.append(String.format(Locale.ROOT, "| %s | %d (%d-%d) | %.2fx | %.2fx | %d | %d | %.1f | %s | %s | %s |%n", label, run.median(), run.min(), run.max(),
          speedUp, vsLimit, run.medianOf(p -> p.s3().gets()), run.medianOf(p -> p.s3().heads()), run.medianOf(p -> p.s3().bytes()) / 1e6,
          locality, ownBytes, peerFill));
    }
    line.append(" seconds=").append(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    System.err.println();
    System.err.println(table);
    System.err.println("cluster-tpcds: " + line);
    String figures = line.toString();

    Run classic = runs.get("s3a-classic");
    if (classic != null) {
      assertThat(classic.answers()).as(figures).isEqualTo(data.direct());
    }
    runs.forEach((label, run) -> {
      assertThat(run.answers()).as("%s: %s", label, figures).isEqualTo(data.direct());
      CONFIGS.stream().filter(c -> c.label().equals(label)).findFirst().ifPresent(config -> {
        if (config.reading() == Reading.WARM) {
          assertThat(run.passes()).as("%s: %s", label, figures).allSatisfy(pass -> assertThat(pass.s3().gets()).isZero());
        }
        if (config.reading() == Reading.COLD) {
          // each block from S3 once for the cluster: S3 sent no more than the nodes cached of it
          assertThat(run.passes()).as("%s: %s", label, figures)
              .allSatisfy(pass -> assertThat(pass.s3().bytes()).isPositive().isLessThanOrEqualTo((long) (1.05 * pass.cachedBytes())));
        }
      });
    });
  }

  /** One timed pass over the queries: its time, what S3 answered, and for RubiX what the nodes counted. */
  record Pass(long millis, S3ServerControl.Counters s3, int scanTasks, int nodeLocal, long inputBytes, long peerBytes, long peerFillSourceBytes,
      long transferBytes, long cachedBytes) {}

  /** A configuration's passes and the answers of its first timed pass. */
  record Run(List<Pass> passes, List<List<String>> answers) {
    long median() {
      return medianOf(Pass::millis);
    }

    long min() {
      return passes.stream().mapToLong(Pass::millis).min().orElse(0);
    }

    long max() {
      return passes.stream().mapToLong(Pass::millis).max().orElse(0);
    }

    long medianOf(java.util.function.ToLongFunction<Pass> value) {
      long[] sorted = passes.stream().mapToLong(value).sorted().toArray();
      return sorted.length % 2 == 1 ? sorted[sorted.length / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    long sum(java.util.function.ToLongFunction<Pass> value) {
      return passes.stream().mapToLong(value).sum();
    }

    double nodeLocalShare() {
      long scans = sum(Pass::scanTasks);
      return scans == 0 ? 0 : sum(Pass::nodeLocal) / (double) scans;
    }

    /** The share of the scans' bytes (Spark's input bytes) that did not come from a peer's cache. */
    double localByteShare() {
      long input = sum(Pass::inputBytes);
      return input == 0 ? 0 : 1 - sum(Pass::peerBytes) / (double) input;
    }

    /** The share of the bytes from S3 that an owner fetched for a peer's reader (a peer fill). */
    double peerFillShare() {
      long s3 = sum(p -> p.s3().bytes());
      return s3 == 0 ? 0 : sum(Pass::peerFillSourceBytes) / (double) s3;
    }
  }

  private Run run(Config config) throws IOException, TimeoutException {
    Map<String, String> spark = Map.of("spark.app.name", "rubix-tpcds-" + config.label(), "spark.sql.shuffle.partitions", Integer.toString(NODES));
    try (RubixSparkCluster cluster = RubixSparkCluster.start(temp.resolve(config.label()), data, NODES, config.hadoop(), spark, config.rubix())) {
      SparkSession session = cluster.spark();
      Tasks tasks = new Tasks();
      session.sparkContext().addSparkListener(tasks);
      data.register(session, config.reading() == Reading.LOCAL ? SparkClusterTpcdsIT::localPath : TpcdsOnS3::path);
      TpcdsOnS3.answer(session, QUERIES.get(0));
      if (config.reading() == Reading.WARM || config.reading() == Reading.LOCAL) {
        QUERIES.forEach(query -> TpcdsOnS3.answer(session, query));
      }
      List<Pass> passes = new ArrayList<>();
      List<List<String>> answers = null;
      for (int i = 0; i < ITERATIONS; i++) {
        List<List<String>> passAnswers = new ArrayList<>();
        passes.add(pass(config, cluster, tasks, passAnswers));
        if (answers == null) {
          answers = passAnswers;
        }
      }
      return new Run(passes, answers);
    }
  }

  private Pass pass(Config config, RubixSparkCluster cluster, Tasks tasks, List<List<String>> answers) throws IOException, TimeoutException {
    SparkSession session = cluster.spark();
    Map<String, Long> counted = new HashMap<>();
    List<NodeMetrics> nodesBefore = config.rubix() ? cluster.scrapeNodes() : List.of();
    Map<String, Long> before = config.reading() == Reading.WARM ? executorTotals(cluster) : Map.of();
    long cached = 0;
    long millis = 0;
    session.sparkContext().listenerBus().waitUntilEmpty();
    tasks.clear();
    data.server().reset();
    for (String query : QUERIES) {
      if (config.reading() == Reading.COLD) {
        cluster.clearCaches();
        FileSystem.closeAll();
        // the executors' new file systems hold the cluster before the query starts
        cluster.awaitExecutors();
        before = executorTotals(cluster);
      } else if (config.reading() != Reading.WARM) {
        cluster.closeExecutorFileSystems();
        FileSystem.closeAll();
      }
      long start = System.nanoTime();
      answers.add(TpcdsOnS3.answer(session, query));
      millis += TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      if (config.reading() == Reading.COLD) {
        add(counted, before, executorTotals(cluster));
        cached += cluster.scrapeNodes().stream().mapToLong(m -> m.get("rubix_cache_used_bytes")).sum();
      }
    }
    session.sparkContext().listenerBus().waitUntilEmpty();
    S3ServerControl.Counters s3 = data.server().reset();
    List<SparkListenerTaskEnd> ended = tasks.ended();
    if (config.reading() == Reading.WARM) {
      add(counted, before, executorTotals(cluster));
    }
    long peerFill = 0;
    long transfer = 0;
    if (config.rubix()) {
      List<NodeMetrics> nodesAfter = cluster.scrapeNodes();
      for (int i = 0; i < nodesAfter.size(); i++) {
        peerFill += nodesAfter.get(i).get(CacheCounter.PEER_FILL_SOURCE_BYTES.statisticName()) - nodesBefore.get(i).get(CacheCounter.PEER_FILL_SOURCE_BYTES.statisticName());
        transfer += nodesAfter.get(i).get("rubix_transfer_bytes_served") - nodesBefore.get(i).get("rubix_transfer_bytes_served");
      }
    }
    int scans = 0;
    int local = 0;
    long input = 0;
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
    return new Pass(millis, s3, scans, local, input, counted.getOrDefault(CacheCounter.PEER_BYTES.statisticName(), 0L), peerFill, transfer, cached);
  }

  /** The executors' counters so far, summed over the nodes. */
  private static Map<String, Long> executorTotals(RubixSparkCluster cluster) {
    Map<String, Long> totals = new HashMap<>();
    cluster.executorCounters().values().forEach(counters -> counters.forEach((name, value) -> totals.merge(name, value, Long::sum)));
    return totals;
  }

  private static void add(Map<String, Long> counted, Map<String, Long> before, Map<String, Long> after) {
    after.forEach((name, value) -> counted.merge(name, value - before.getOrDefault(name, 0L), Long::sum));
  }

  /** The tasks that ended since the last {@link #clear()}. */
  private static final class Tasks extends SparkListener {
    private final List<SparkListenerTaskEnd> ended = new ArrayList<>();

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd taskEnd) {
      ended.add(taskEnd);
    }

    synchronized void clear() {
      ended.clear();
    }

    synchronized List<SparkListenerTaskEnd> ended() {
      return List.copyOf(ended);
    }
  }
}
