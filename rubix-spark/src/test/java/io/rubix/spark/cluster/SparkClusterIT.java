package io.rubix.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.spark.RubixPlugin;
import io.rubix.testing.S3ServerControl;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

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
  private static final int NODES = 2;
  /** Files per table: smaller than a task, so Spark packs several into each. */
  private static final Map<String, Integer> TABLES = Map.of("store_sales", 8, "item", 4, "date_dim", 2);
  private static final List<String> QUERIES = List.of("q3", "q42", "q55");

  /** Kept after the run (logs of every process are under it); emptied when the next run starts. */
  private static final Path temp = Path.of("target", "spark-cluster-it").toAbsolutePath();
  private TpcdsOnS3 data;
  private RubixSparkCluster cluster;
  private SparkSession spark;
  private final List<SparkListenerTaskEnd> tasks = new ArrayList<>();

  @BeforeAll
  void start() throws IOException, TimeoutException {
    RubixSparkCluster.emptyDirectory(temp);
    data = TpcdsOnS3.start(temp, SCALE, TABLES, QUERIES);
    cluster = RubixSparkCluster.start(temp, data, NODES, Map.of());
    spark = cluster.spark();
    spark.sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
        synchronized (tasks) {
          tasks.add(taskEnd);
        }
      }
    });
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (data != null) {
      data.close();
    }
  }

  @Test
  void tasksRunWhereTheirBytesAreCachedAndEachByteIsFetchedOnce() throws IOException, TimeoutException {
    data.server().reset();
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
        + String.format("%.2f", warm.maxOverMean("rubix_cache_used_bytes")) + " directInputBytes=" + data.directInputBytes() + " "
        + cold.figures("cold") + " " + warm.figures("warm") + " " + bySize.figures("sparkPacking");
    System.err.println("cluster-locality: " + figures);

    assertThat(cold.answers).as(figures).isEqualTo(data.direct());
    assertThat(warm.answers).as(figures).isEqualTo(data.direct());
    // each block fetched from S3 once for the cluster: S3 sent no more than the nodes cached
    assertThat(coldS3).as(figures).isPositive().isLessThanOrEqualTo((long) (cached * 1.05));
    assertThat(warm.s3.gets()).as(figures).isZero();
    // by label and by bytes: tasks run on their files' owner and read from its cache
    assertThat(warm.nodeLocal).as(figures).isGreaterThanOrEqualTo((int) Math.ceil(warm.scanTasks * 0.95));
    assertThat(warm.localByteShare()).as(figures).isGreaterThanOrEqualTo(0.9);
    assertThat(bySize.answers).as(figures).isEqualTo(data.direct());
    assertThat(bySize.localByteShare()).as("Spark's packing mixes owners in a task: " + figures).isLessThan(0.9);
    // Spark's input metrics: the bytes the scan read, wherever they came from (on the warm pass, the
    // executors' cache hits byte for byte); at least what plain S3A reports (its vectored reads, which
    // ORC reads stripes with, count in no task's thread)
    assertThat(warm.inputBytes).as(figures).isEqualTo(warm.executor(CacheCounter.HIT_BYTES)).isGreaterThanOrEqualTo(data.directInputBytes());
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
          scanTasks, nodeLocal, inputBytes, peerBytes, localByteShare(), driverPeerBytes, delta("rubix_transfer_served_bytes_total"), executor(CacheCounter.HIT_BYTES));
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
    List<NodeMetrics> before = cluster.scrapeNodes();
    long driverPeerBytes = cluster.driverCounter(CacheCounter.PEER_BYTES);
    Map<String, Long> executorsBefore = executorTotals();
    spark.sparkContext().listenerBus().waitUntilEmpty();
    synchronized (tasks) {
      tasks.clear();
    }
    List<List<String>> answers = data.run(spark);
    spark.sparkContext().listenerBus().waitUntilEmpty();
    S3ServerControl.Counters s3 = data.server().reset();
    List<SparkListenerTaskEnd> ended;
    synchronized (tasks) {
      ended = List.copyOf(tasks);
    }
    return new Pass(answers, s3, before, cluster.scrapeNodes(), ended, cluster.driverCounter(CacheCounter.PEER_BYTES) - driverPeerBytes,
        executorsBefore, executorTotals());
  }

  /** The executors' counters so far, summed over the nodes. */
  private Map<String, Long> executorTotals() {
    Map<String, Long> totals = new HashMap<>();
    cluster.executorCounters().values().forEach(counters -> counters.forEach((name, value) -> totals.merge(name, value, Long::sum)));
    return totals;
  }
}
