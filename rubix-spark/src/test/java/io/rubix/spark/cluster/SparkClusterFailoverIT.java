package io.rubix.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3ServerControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.fs.FileStatus;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A cache cluster of Spark executors losing a node in the middle of a query and gaining one between
 * queries: a standalone cluster of three nodes ({@link RubixSparkCluster}, each executor running its
 * node's BookKeeper) reading TPC-DS tables from an S3 server that answers every GET after 20 ms.
 *
 * <ul>
 *   <li>Lost: a pass of the queries that fills the caches, then a pass during which the node running
 *       the pass's first task is killed (kill -9 of its Worker, its executor and so its BookKeeper).
 *       Every query answers as direct S3A does, S3 sends about what the lost node held (its splits go
 *       to their rendezvous runners-up, nothing else moves), the pass after is warm again, and the
 *       driver's block locations leave the node (timed from the kill: Spark removes the executor when
 *       its connection drops, the driver plugin rewrites the executor list, and the driver's file
 *       cluster manager reads it within {@code rubix.cluster.refresh.interval}, 1 s here).
 *   <li>Added: a fourth node joins a warm cluster; about a quarter of the splits change owner, all to
 *       the new node, and S3 sends about a quarter of the cached bytes: the new owner fetches its splits
 *       from S3, as nothing fills them from their previous owners.
 * </ul>
 *
 * <p>Not in the default build (about 2.5 minutes on two shared cores, 5 beside another build): {@code -Dit.test=SparkClusterFailoverIT}
 * runs it (docs/spark.md). Each scenario ends with one line of figures ({@code cluster-failover:},
 * {@code cluster-scaleout:}) on stderr.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkClusterFailoverIT {
  private static final double SCALE = 0.01;
  private static final int NODES = 3;
  private static final Map<String, Integer> TABLES = Map.of("store_sales", 12, "date_dim", 4, "item", 2, "store", 1);
  /**
   * q52 first: the node is killed during it, and q55 reads the same columns of the same tables later in
   * the pass, so whatever the lost node served before it died is fetched again in the pass (a block
   * it served that no later query reads would only be fetched by the pass after). Every query has rows:
   * an empty join side lets Spark's adaptive execution skip the other scans (q96 at this scale), and
   * what a pass reads would depend on timing.
   */
  private static final List<String> QUERIES = List.of("q52", "q3", "q42", "q55", "q43");
  private static final long GET_LATENCY_MS = 20;
  /**
   * The tables are about 8 MB in files under 1 MB: as a real table of many large files, they get
   * many splits (of one 64 KiB block each, not one per file, so that the share of the splits a node
   * owns does not hang on a handful of files), and no fetch of whole files (by default a file under
   * 1 MB is fetched whole at its first miss, in the runs of blocks the reading node owns: what a
   * node caches would then depend on which of its blocks was read first).
   */
  private static final Map<String, String> SETTINGS =
      Map.of("rubix.cache.block.size", "64k", "rubix.cache.filesplit.size", "64k", "rubix.cache.fetch.whole.max", "0");
  private static final Duration LOCATIONS_TIMEOUT = Duration.ofSeconds(60);

  /** Kept after the run (logs of every process are under it); emptied when the next run starts. */
  private static final Path temp = Path.of("target", "spark-cluster-failover-it").toAbsolutePath();
  private TpcdsOnS3 data;

  @BeforeAll
  void start() throws IOException, TimeoutException {
    RubixSparkCluster.emptyDirectory(temp);
    data = TpcdsOnS3.start(temp, SCALE, TABLES, QUERIES);
    assertThat(data.direct()).as("rows of %s", QUERIES).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    data.server().settings(GET_LATENCY_MS, 0);
  }

  @AfterAll
  void stop() {
    if (data != null) {
      data.close();
    }
  }

  @Test
  void nodeLostMidQuery() throws IOException, TimeoutException, InterruptedException, ExecutionException {
    long started = System.nanoTime();
    try (RubixSparkCluster cluster = RubixSparkCluster.start(temp.resolve("lost"), data, NODES, SETTINGS)) {
      SparkSession spark = cluster.spark();
      FailedTasks failed = new FailedTasks();
      spark.sparkContext().addSparkListener(failed);
      KillOnFirstTask killer = new KillOnFirstTask(cluster.nodes());
      spark.sparkContext().addSparkListener(killer);
      List<FileStatus> files = List.copyOf(data.files(spark.sessionState().newHadoopConf()));
      data.server().reset();

      Pass warmUp = pass(spark, failed);
      Map<String, Long> cached = cachedBytes(cluster);
      Map<String, Map<String, Long>> countersBefore = cluster.executorCounters();

      ExecutorService poller = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "driver-locations-poller");
        thread.setDaemon(true);
        return thread;
      });
      Pass lost;
      Kill kill;
      Duration forgotten;
      try {
        CompletableFuture<Duration> locationsLeft = killer.killed.thenApplyAsync(k -> awaitLocationsWithout(cluster, files, k), poller);
        killer.arm();
        lost = pass(spark, failed);
        kill = killer.killed.getNow(null);
        assertThat(kill).as("a node was killed during the pass").isNotNull();
        forgotten = locationsLeft.get(LOCATIONS_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        poller.shutdownNow();
      }
      Map<String, Map<String, Long>> countersAfter = cluster.executorCounters();
      long survivorsCachedGrowth = 0;
      for (Map.Entry<String, Long> node : cachedBytes(cluster).entrySet()) {
        survivorsCachedGrowth += node.getValue() - cached.get(node.getKey());
      }
      Pass again = pass(spark, failed);

      long victimCached = cached.get(kill.node());
      long cachedTotal = cached.values().stream().mapToLong(Long::longValue).sum();
      String figures = "nodes=" + NODES + " victim=" + kill.node() + " killedInStage=" + kill.stageId()
          + " cachedBytes=" + cachedTotal + " victimCachedBytes=" + victimCached
          + " warmUpGets=" + warmUp.s3().gets() + " warmUpS3Bytes=" + warmUp.s3().bytes()
          + " lostGets=" + lost.s3().gets() + " lostS3Bytes=" + lost.s3().bytes()
          + " lostS3OverVictimCached=" + String.format("%.3f", lost.s3().bytes() / (double) victimCached)
          + " lostFailedTasks=" + lost.failedTasks() + " lostSurvivorsCachedGrowth=" + survivorsCachedGrowth
          + " survivorsNonOwnerSourceBytes=" + delta(countersBefore, countersAfter, CacheCounter.NON_OWNER_SOURCE_BYTES)
          + " survivorsFallbackPeer=" + delta(countersBefore, countersAfter, CacheCounter.FALLBACK_PEER)
          + " driverLocationsLeftMs=" + forgotten.toMillis()
          + " againGets=" + again.s3().gets() + " againS3Bytes=" + again.s3().bytes()
          + " warmUpMs=" + warmUp.millis() + " lostMs=" + lost.millis() + " againMs=" + again.millis()
          + " seconds=" + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
      System.err.println("cluster-failover: " + figures);

      assertThat(warmUp.answers()).as(figures).isEqualTo(data.direct());
      assertThat(lost.answers()).as(figures).isEqualTo(data.direct());
      assertThat(again.answers()).as(figures).isEqualTo(data.direct());
      assertThat(victimCached).as(figures).isPositive();
      // the lost node's splits, fetched again by their runners-up, which cache them (lostSurvivorsCachedGrowth). No
      // allowance for footers: the driver reads them through their owners too, before the kill in this pass
      assertThat(lost.s3().bytes()).as(figures).isLessThanOrEqualTo((long) (victimCached * 1.2));
      assertThat(again.s3().gets()).as(figures).isZero();
    }
  }

  @Test
  void nodeAddedBetweenPasses() throws IOException, TimeoutException {
    long started = System.nanoTime();
    try (RubixSparkCluster cluster = RubixSparkCluster.start(temp.resolve("added"), data, NODES, SETTINGS)) {
      SparkSession spark = cluster.spark();
      FailedTasks failed = new FailedTasks();
      spark.sparkContext().addSparkListener(failed);
      List<FileStatus> files = List.copyOf(data.files(spark.sessionState().newHadoopConf()));
      data.server().reset();

      Pass warmUp = pass(spark, failed);
      long cached = cachedBytes(cluster).values().stream().mapToLong(Long::longValue).sum();
      Map<String, String> before = cluster.splitOwners(files);
      long joining = System.nanoTime();
      // the Master starts an executor of the running application on the new Worker: the application
      // asks for every core there is (spark.cores.max unset; with it set to the cores it has, it would not)
      String added = cluster.nodes().addNode();
      cluster.awaitExecutors();
      long joinMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joining);
      Map<String, String> after = cluster.splitOwners(files);
      Pass scaledOut = pass(spark, failed);

      int moved = 0;
      int movedToAdded = 0;
      for (Map.Entry<String, String> split : before.entrySet()) {
        String owner = after.get(split.getKey());
        if (!split.getValue().equals(owner)) {
          moved++;
          movedToAdded += added.equals(owner) ? 1 : 0;
        }
      }
      double movedShare = moved / (double) before.size();
      double ideal = 1.0 / (NODES + 1);
      String figures = "nodes=" + NODES + "+1 added=" + added + " splits=" + before.size() + " moved=" + moved
          + " movedToAdded=" + movedToAdded + " movedShare=" + String.format("%.3f", movedShare) + " idealShare=" + String.format("%.3f", ideal)
          + " cachedBytes=" + cached + " warmUpGets=" + warmUp.s3().gets() + " warmUpS3Bytes=" + warmUp.s3().bytes()
          + " gets=" + scaledOut.s3().gets() + " s3Bytes=" + scaledOut.s3().bytes()
          + " s3ShareOfCached=" + String.format("%.3f", scaledOut.s3().bytes() / (double) cached)
          + " addedCachedBytes=" + cachedBytes(cluster).get(added)
          + " failedTasks=" + scaledOut.failedTasks() + " joinMs=" + joinMillis
          + " warmUpMs=" + warmUp.millis() + " scaledOutMs=" + scaledOut.millis()
          + " seconds=" + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
      System.err.println("cluster-scaleout: " + figures);

      assertThat(warmUp.answers()).as(figures).isEqualTo(data.direct());
      assertThat(scaledOut.answers()).as(figures).isEqualTo(data.direct());
      assertThat(after.keySet()).as(figures).isEqualTo(before.keySet());
      // rendezvous hashing: only the splits the new node wins move, all to it
      assertThat(movedToAdded).as(figures).isEqualTo(moved);
      assertThat(movedShare).as(figures).isLessThanOrEqualTo(1.3 * ideal);
      // the new owner takes its splits from their previous owners' caches (rubix.network.transfer.handoff.window),
      // for its own reads and for what it fills for peers (the driver's footer reads): scale-out costs at most 5 %
      // of the cached bytes from S3 (0.021 measured; 0.250 without the hand-off, 0.112 with it on readers only)
      assertThat(scaledOut.s3().bytes()).as(figures).isLessThanOrEqualTo((long) (0.05 * cached));
    }
  }

  /** One pass of the queries: answers, what S3 sent, tasks that did not succeed, time. */
  private record Pass(List<List<String>> answers, S3ServerControl.Counters s3, int failedTasks, long millis) {}

  private Pass pass(SparkSession spark, FailedTasks failed) throws IOException, TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    failed.count.set(0);
    long start = System.nanoTime();
    List<List<String>> answers = data.run(spark);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    spark.sparkContext().listenerBus().waitUntilEmpty();
    return new Pass(answers, data.server().reset(), failed.count.get(), millis);
  }

  /** The bytes each running node's BookKeeper has cached ({@code rubix_cache_used_bytes}: blocks rounded up to 4 KiB, and 4 KiB per file). */
  private static Map<String, Long> cachedBytes(RubixSparkCluster cluster) throws IOException {
    Map<String, Long> cached = new LinkedHashMap<>();
    for (String node : cluster.nodes().addresses()) {
      cached.put(node, cluster.scrape(node).get("rubix_cache_used_bytes"));
    }
    return cached;
  }

  /** How long after the kill the driver's block locations of {@code files} stopped naming the killed node. */
  private static Duration awaitLocationsWithout(RubixSparkCluster cluster, List<FileStatus> files, Kill kill) {
    long deadline = kill.nanoTime() + LOCATIONS_TIMEOUT.toNanos();
    try {
      while (cluster.splitOwners(files).containsValue(kill.node())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("The driver still reports " + kill.node() + " in block locations " + LOCATIONS_TIMEOUT + " after its kill");
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Duration.ofNanos(System.nanoTime() - kill.nanoTime());
  }

  /** The growth of {@code counter} over the nodes in {@code after}. */
  private static long delta(Map<String, Map<String, Long>> before, Map<String, Map<String, Long>> after, CacheCounter counter) {
    String name = counter.statisticName();
    long total = 0;
    for (Map.Entry<String, Map<String, Long>> node : after.entrySet()) {
      total += node.getValue().getOrDefault(name, 0L) - before.getOrDefault(node.getKey(), Map.of()).getOrDefault(name, 0L);
    }
    return total;
  }

  /** Which node was killed, when ({@link System#nanoTime()}) and in which stage. */
  private record Kill(String node, long nanoTime, int stageId) {}

  /** Once armed, kills the node of the next task that starts (on the listener bus's thread), once. */
  private static final class KillOnFirstTask extends SparkListener {
    private final StandaloneCluster cluster;
    private final AtomicBoolean armed = new AtomicBoolean();
    final CompletableFuture<Kill> killed = new CompletableFuture<>();

    KillOnFirstTask(StandaloneCluster cluster) {
      this.cluster = cluster;
    }

    void arm() {
      armed.set(true);
    }

    @Override
    public void onTaskStart(SparkListenerTaskStart start) {
      if (armed.compareAndSet(true, false)) {
        String node = start.taskInfo().host();
        long now = System.nanoTime();
        cluster.kill(node);
        killed.complete(new Kill(node, now, start.stageId()));
      }
    }
  }

  /** Counts the tasks that ended without success. */
  private static final class FailedTasks extends SparkListener {
    final AtomicInteger count = new AtomicInteger();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (!end.taskInfo().successful()) {
        count.incrementAndGet();
      }
    }
  }
}
