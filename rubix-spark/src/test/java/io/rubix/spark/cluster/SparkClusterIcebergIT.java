package io.rubix.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spark.RubixPlugin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Spark's scheduler placing Iceberg scan tasks on a standalone cluster of two nodes ({@link RubixSparkCluster}:
 * each executor runs its node's BookKeeper through {@link RubixPlugin}; Iceberg's Spark runtime jar is
 * in the installation's {@code jars/}, as a user's would be). TPC-DS {@code store_sales}, {@code item} and
 * {@code date_dim} at scale 0.01 are Iceberg tables of several Parquet files each in a Hadoop catalog on
 * the S3 server, read with the catalog's default {@code HadoopFileIO} over {@code CachingS3AFileSystem}.
 *
 * <p>Iceberg asks the file system for block locations on {@code s3a} only with the read option
 * {@code locality=true} or {@code spark.sql.iceberg.locality.enabled=true}, and packs small files into
 * one task (a task then prefers every owner among its files). Passes of q3, q42 and q55:
 * <ol>
 *   <li>cold, locality on, one file per task (read option {@code file-open-cost} at Iceberg's target
 *       split size, 128 MiB: every file weighs a whole split, so none shares a task);
 *   <li>(a) warm, the same settings;
 *   <li>(b) warm, locality on, Iceberg's default packing;
 *   <li>(c) warm, Iceberg's defaults (locality off, default packing).
 * </ol>
 * Asserted: answers equal direct S3A's over the same tables; the cold pass's bytes from S3 at most 1.05 x
 * what the nodes cached; no GET of a data file on warm pass (a), and on (b) and (c), whose tasks read
 * files other nodes own, at most a quarter of the cold pass's bytes from S3 (a non-owner stream reads
 * ahead from S3 the blocks past those its owner cached); (a) at least 95 % of scan tasks
 * {@code NODE_LOCAL} and 90 % of their bytes from their own node; (b) fewer tasks than (a); (c) no task
 * {@code NODE_LOCAL} (Spark labels a task without preferred hosts {@code PROCESS_LOCAL}). The figures
 * end stderr as one {@code cluster-iceberg:} line.
 *
 * <p>In the default build with {@link SparkClusterIT}: the class took 48 s on two shared cores (SparkClusterIT 35 s).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkClusterIcebergIT {
  private static final double SCALE = 0.01;
  private static final int NODES = 2;
  private static final Map<String, Integer> TABLES = Map.of("store_sales", 8, "item", 4, "date_dim", 2);
  private static final List<String> QUERIES = List.of("q3", "q42", "q55");
  private static final String LOCALITY = "spark.sql.iceberg.locality.enabled";
  /** Iceberg's default target split size ({@code read.split.target-size}) as the cost of opening a file: one file per task. */
  private static final Map<String, String> ONE_FILE_PER_TASK = Map.of("file-open-cost", Long.toString(128L << 20));
  private static final Predicate<String> DATA_FILES = key -> key.contains("/data/");

  /** Kept after the run (logs of every process are under it); emptied when the next run starts. */
  private static final Path temp = Path.of("target", "spark-cluster-iceberg-it").toAbsolutePath();
  private long started;
  private TpcdsOnS3 data;
  private RubixSparkCluster cluster;
  private SparkSession spark;
  private ClusterPass.Recorder passes;

  @BeforeAll
  void start() throws IOException, TimeoutException {
    started = System.nanoTime();
    RubixSparkCluster.emptyDirectory(temp);
    data = TpcdsOnS3.start(temp, SCALE, TABLES, QUERIES, TpcdsOnS3.Format.ICEBERG);
    cluster = RubixSparkCluster.start(temp, data, NODES, Map.of(), data.sessionSettings(), true);
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
  void icebergScanTasksRunOnTheOwnersWithLocalityAndOneFilePerTask() throws IOException, TimeoutException {
    try (Stream<Path> jars = Files.list(temp.resolve("cluster").resolve("spark-home").resolve("jars"))) {
      assertThat(jars.map(jar -> jar.getFileName().toString())).as("the executors' Spark installation has Iceberg")
          .anyMatch(name -> name.startsWith("iceberg-spark-runtime-"));
    }
    data.server().reset();
    ClusterPass cold = withLocality(true, () -> data.run(spark, ONE_FILE_PER_TASK));
    ClusterPass ownerTasks = withLocality(true, () -> data.run(spark, ONE_FILE_PER_TASK));
    ClusterPass packed = withLocality(true, () -> data.run(spark, Map.of()));
    ClusterPass defaults = passes.pass(() -> data.run(spark, Map.of()));

    long coldS3 = cold.s3.bytes();
    long cached = ownerTasks.sum("rubix_cache_used_bytes");
    String figures = String.format(Locale.ROOT, "nodes=%d coldS3Bytes=%d cachedBytes=%d directInputBytes=%d coldDataGets=%d %s %s %s %s"
        + " oneFileDataGets=%d packedDataGets=%d defaultsDataGets=%d seconds=%d", NODES, coldS3, cached, data.directInputBytes(),
        cold.gets(DATA_FILES), cold.figures("cold"), ownerTasks.figures("oneFile"), packed.figures("packed"), defaults.figures("defaults"),
        ownerTasks.gets(DATA_FILES), packed.gets(DATA_FILES), defaults.gets(DATA_FILES), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    System.err.println("cluster-iceberg: " + figures);

    assertThat(data.direct()).as(figures).hasSize(QUERIES.size()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    for (ClusterPass pass : List.of(cold, ownerTasks, packed, defaults)) {
      assertThat(pass.answers).as(figures).isEqualTo(data.direct());
      assertThat(pass.scanTasks).as(figures).isPositive();
    }
    // each block fetched from S3 once for the cluster: S3 sent no more than the nodes cached
    assertThat(cold.gets(DATA_FILES)).as(figures).isPositive();
    assertThat(coldS3).as(figures).isPositive().isLessThanOrEqualTo((long) (cached * 1.05));
    assertThat(ownerTasks.gets(DATA_FILES)).as("no data file fetched warm: %s", figures).isZero();
    // tasks on a node that does not own their files read the owner's cache; what a sequential stream there
    // reads ahead past the blocks the owner cached comes from S3 (64 KiB blocks: 2 GETs, 0.8 MB, in one run)
    for (ClusterPass elsewhere : List.of(packed, defaults)) {
      assertThat(elsewhere.s3.bytes()).as("mostly from the owners' caches: %s", figures).isLessThanOrEqualTo(coldS3 / 4);
    }
    // (a) by label and by bytes: tasks run on their file's owner and read from its cache
    assertThat(ownerTasks.level("NODE_LOCAL")).as(figures).isGreaterThanOrEqualTo((int) Math.ceil(ownerTasks.scanTasks * 0.95));
    assertThat(ownerTasks.localByteShare()).as(figures).isGreaterThanOrEqualTo(0.9);
    // (b) Iceberg packs the small files: fewer tasks, each preferring the owners of all its files
    assertThat(packed.scanTasks).as(figures).isLessThan(ownerTasks.scanTasks);
    // (c) without locality Iceberg reports no preferred hosts: no task is placed by them (Spark labels
    // a task without preferences PROCESS_LOCAL, never NODE_LOCAL)
    assertThat(defaults.level("NODE_LOCAL")).as(figures).isZero();
  }

  /** One pass with Iceberg's locality (the session setting) on or off. */
  private ClusterPass withLocality(boolean locality, Supplier<List<List<String>>> queries) throws IOException, TimeoutException {
    spark.conf().set(LOCALITY, Boolean.toString(locality));
    try {
      return passes.pass(queries);
    } finally {
      spark.conf().unset(LOCALITY);
    }
  }
}
