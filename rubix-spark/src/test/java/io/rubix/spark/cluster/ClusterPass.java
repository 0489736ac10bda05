package io.rubix.spark.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * What one pass of queries on a {@link RubixSparkCluster} read and from where: its answers, what the S3
 * server served, the scan tasks (those that read input) and how Spark placed them, the bytes the
 * executors' caches took from peers, and the nodes' BookKeeper metrics before and after.
 */
final class ClusterPass {
  final List<List<String>> answers;
  final S3ServerControl.Counters s3;
  /** What S3 served object by object ({@code "GET bucket/key" -> n}). */
  final Map<String, Long> requests;
  final List<NodeMetrics> before;
  final List<NodeMetrics> after;
  final long inputBytes;
  final long peerBytes;
  final long driverPeerBytes;
  /** What the executors' caching file systems counted during the pass. */
  final Map<String, Long> executors;
  final int scanTasks;
  /** Scan tasks Spark labelled {@code NODE_LOCAL} or {@code PROCESS_LOCAL}. */
  final int nodeLocal;
  /**
   * Scan tasks by the locality level Spark labelled them with. A task without preferred hosts is
   * labelled {@code PROCESS_LOCAL} too (Spark's {@code TaskSetManager} takes it from its no-preference
   * queue with that label), so only a count of {@code NODE_LOCAL} tells placement by preference.
   */
  final Map<String, Integer> levels;

  private ClusterPass(List<List<String>> answers, S3ServerControl.Counters s3, Map<String, Long> requests, List<NodeMetrics> before,
      List<NodeMetrics> after, List<SparkListenerTaskEnd> ended, long driverPeerBytes, Map<String, Long> executorsBefore,
      Map<String, Long> executorsAfter) {
    this.answers = answers;
    this.s3 = s3;
    this.requests = Map.copyOf(requests);
    this.before = before;
    this.after = after;
    long input = 0;
    int scans = 0;
    int local = 0;
    Map<String, Integer> byLevel = new TreeMap<>();
    for (SparkListenerTaskEnd task : ended) {
      long read = task.taskMetrics() == null ? 0 : task.taskMetrics().inputMetrics().bytesRead();
      if (read > 0) {
        input += read;
        scans++;
        String level = task.taskInfo().taskLocality().toString();
        byLevel.merge(level, 1, Integer::sum);
        if (level.equals("NODE_LOCAL") || level.equals("PROCESS_LOCAL")) {
          local++;
        }
      }
    }
    this.inputBytes = input;
    this.scanTasks = scans;
    this.nodeLocal = local;
    this.levels = Map.copyOf(byLevel);
    this.driverPeerBytes = driverPeerBytes;
    this.executors = new HashMap<>();
    executorsAfter.forEach((name, value) -> executors.put(name, value - executorsBefore.getOrDefault(name, 0L)));
    this.peerBytes = executor(CacheCounter.PEER_BYTES);
  }

  /** The change of a BookKeeper metric over the pass, summed over the nodes. */
  long delta(String metric) {
    long total = 0;
    for (int i = 0; i < after.size(); i++) {
      total += after.get(i).get(metric) - before.get(i).get(metric);
    }
    return total;
  }

  /** A BookKeeper metric after the pass, summed over the nodes. */
  long sum(String metric) {
    return after.stream().mapToLong(m -> m.get(metric)).sum();
  }

  double maxOverMean(String metric) {
    long max = after.stream().mapToLong(m -> m.get(metric)).max().orElse(0);
    return max / (sum(metric) / (double) after.size());
  }

  /** GETs of the objects ({@code bucket/key}) {@code objects} accepts. */
  long gets(Predicate<String> objects) {
    return requests.entrySet().stream().filter(e -> e.getKey().startsWith("GET ") && objects.test(e.getKey().substring(4)))
        .mapToLong(Map.Entry::getValue).sum();
  }

  /** Scan tasks labelled {@code level} ({@code NODE_LOCAL}, ...). */
  int level(String level) {
    return levels.getOrDefault(level, 0);
  }

  String figures(String pass) {
    return String.format(Locale.ROOT, "%1$sGets=%2$d %1$sS3Bytes=%3$d %1$sScanTasks=%4$d %1$sNodeLocal=%5$d %1$sInputBytes=%6$d "
        + "%1$sPeerBytes=%7$d %1$sHitBytes=%11$d %1$sLocalByteShare=%8$.3f %1$sDriverPeerBytes=%9$d %1$sTransferBytes=%10$d %1$sLevels=%12$s",
        pass, s3.gets(), s3.bytes(), scanTasks, nodeLocal, inputBytes, peerBytes, localByteShare(), driverPeerBytes,
        delta("rubix_transfer_served_bytes_total"), executor(CacheCounter.HIT_BYTES), new TreeMap<>(levels).toString().replace(" ", ""));
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

  /** Records passes on one cluster: a listener of the session's ended tasks. */
  static final class Recorder extends SparkListener {
    private final RubixSparkCluster cluster;
    private final S3ServerProcess server;
    private final List<SparkListenerTaskEnd> tasks = new ArrayList<>();

    private Recorder(RubixSparkCluster cluster, S3ServerProcess server) {
      this.cluster = requireNonNull(cluster, "cluster is null");
      this.server = requireNonNull(server, "server is null");
    }

    /** A recorder listening to {@code cluster}'s session; {@code server} is the S3 server its tables are on. */
    static Recorder attach(RubixSparkCluster cluster, S3ServerProcess server) {
      Recorder recorder = new Recorder(cluster, server);
      cluster.spark().sparkContext().addSparkListener(recorder);
      return recorder;
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
      synchronized (tasks) {
        tasks.add(taskEnd);
      }
    }

    /**
     * Runs {@code queries} (one list of rows per query) as one pass; the S3 server's counters are reset
     * at its end, so a pass counts what S3 served since the previous pass ended (or the server's last reset).
     */
    ClusterPass pass(Supplier<List<List<String>>> queries) throws IOException, TimeoutException {
      SparkSession spark = cluster.spark();
      List<NodeMetrics> before = cluster.scrapeNodes();
      long driverPeerBytes = cluster.driverCounter(CacheCounter.PEER_BYTES);
      Map<String, Long> executorsBefore = executorTotals();
      spark.sparkContext().listenerBus().waitUntilEmpty();
      synchronized (tasks) {
        tasks.clear();
      }
      List<List<String>> answers = queries.get();
      spark.sparkContext().listenerBus().waitUntilEmpty();
      Map<String, Long> requests = server.requests();
      S3ServerControl.Counters s3 = server.reset();
      List<SparkListenerTaskEnd> ended;
      synchronized (tasks) {
        ended = List.copyOf(tasks);
      }
      return new ClusterPass(answers, s3, requests, before, cluster.scrapeNodes(), ended,
          cluster.driverCounter(CacheCounter.PEER_BYTES) - driverPeerBytes, executorsBefore, executorTotals());
    }

    /** The executors' counters so far, summed over the nodes. */
    private Map<String, Long> executorTotals() {
      Map<String, Long> totals = new HashMap<>();
      cluster.executorCounters().values().forEach(counters -> counters.forEach((name, value) -> totals.merge(name, value, Long::sum)));
      return totals;
    }
  }
}
