package io.rubix.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.spark.RubixPlugin;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
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
  private ClusterPass.Recorder passes;

  @BeforeAll
  void start() throws IOException, TimeoutException {
    RubixSparkCluster.emptyDirectory(temp);
    data = TpcdsOnS3.start(temp, SCALE, TABLES, QUERIES);
    cluster = RubixSparkCluster.start(temp, data, NODES, Map.of());
    spark = cluster.spark();
    passes = ClusterPass.Recorder.attach(cluster, data.server());
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
    ClusterPass cold = passes.pass(() -> data.run(spark));
    ClusterPass warm = passes.pass(() -> data.run(spark));
    // Spark's own packing of small files into tasks, for comparison: tasks still labelled node-local
    spark.conf().set("spark.rubix.locality.packing", "false");
    ClusterPass bySize;
    try {
      bySize = passes.pass(() -> data.run(spark));
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
}
