package io.rubix.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark local mode over files whose block locations name three hosts ({@link HostedFileSystem}) and
 * are smaller than a task, so Spark packs several into each task: with {@link RubixExtensions} every
 * task holds the files of one host, with the same rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OwnerPackedScanTest {
  @TempDir
  static Path temp;
  private SparkSession spark;
  private String sales;
  private String items;

  @BeforeAll
  void start() {
    spark = SparkSession.builder()
        .master("local[2]")
        .appName("owner-packing")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.extensions", RubixExtensions.class.getName())
        .config("spark.hadoop.fs.hosted.impl", HostedFileSystem.class.getName())
        .config("spark.hadoop.fs.hosted.impl.disable.cache", "true")
        .config("spark.sql.shuffle.partitions", "2")
        // a few files per task: Spark's packing mixes hosts
        .config("spark.sql.files.maxPartitionBytes", "8k")
        .config("spark.sql.files.openCostInBytes", "256")
        .getOrCreate();
    sales = HostedFileSystem.SCHEME + "://" + temp.resolve("sales");
    items = HostedFileSystem.SCHEME + "://" + temp.resolve("items");
    spark.range(0, 24_000).selectExpr("id", "id % 97 AS item", "id * 3 AS amount").repartition(24)
        .write().parquet(sales);
    spark.range(0, 97).selectExpr("id AS item", "concat('item-', id) AS name").repartition(6).write().parquet(items);
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  void sparksPackingMixesHostsInATask() {
    spark.conf().set(OwnerPackingRule.ENABLED, "false");
    try {
      List<FilePartition> tasks = scanTasks(spark.read().parquet(sales));
      assertThat(tasks).anySatisfy(task -> assertThat(hosts(task)).hasSizeGreaterThan(1));
    } finally {
      spark.conf().unset(OwnerPackingRule.ENABLED);
    }
  }

  @Test
  void eachTaskReadsTheFilesOfOneHost() {
    Dataset<Row> scan = spark.read().parquet(sales);
    List<FilePartition> tasks = scanTasks(scan);

    assertThat(tasks).allSatisfy(task -> {
      assertThat(hosts(task)).hasSize(1);
      assertThat(task.preferredLocations()).containsExactly(hosts(task).get(0));
    });
    spark.conf().set(OwnerPackingRule.ENABLED, "false");
    List<FilePartition> bySize;
    try {
      bySize = scanTasks(spark.read().parquet(sales));
    } finally {
      spark.conf().unset(OwnerPackingRule.ENABLED);
    }
    // the same pieces, in at most one partly filled task more per host
    assertThat(pieces(tasks)).containsExactlyInAnyOrderElementsOf(pieces(bySize));
    assertThat(tasks).hasSizeLessThanOrEqualTo(bySize.size() + HostedFileSystem.HOSTS);
  }

  /**
   * Kubernetes: executors are pods, known to the scheduler by pod addresses, while block locations name
   * the nodes whose BookKeepers own the splits; each task prefers the executors on its owner's node.
   */
  @Test
  void tasksPreferTheExecutorsOnTheirOwnersNode() {
    Map<String, List<String>> pods = Map.of("10.0.0.1", List.of("10.244.0.5", "10.244.0.7"), "10.0.0.2", List.of("10.244.1.9"),
        "10.0.0.3", List.of("10.244.2.4"));
    spark.sparkContext().hadoopConfiguration().set(ExecutorHosts.KEY, "10.0.0.1=10.244.0.5 10.244.0.7,10.0.0.2=10.244.1.9,10.0.0.3=10.244.2.4");
    try {
      org.apache.spark.rdd.RDD<?> input = salesScanInput();
      for (Partition partition : input.partitions()) {
        String node = hosts((FilePartition) partition).get(0);
        assertThat(CollectionConverters.asJava(input.preferredLocations(partition))).containsExactlyElementsOf(pods.get(node));
      }
    } finally {
      spark.sparkContext().hadoopConfiguration().unset(ExecutorHosts.KEY);
    }
  }

  /**
   * A node left after the listing was made: its files' tasks name no host and run anywhere at once, not
   * after Spark's locality wait for a host that is gone; the other tasks keep their owner.
   */
  @Test
  void tasksOfANodeThatLeftPreferNoHost() {
    spark.sparkContext().hadoopConfiguration().set("rubix.cluster.nodes", "10.0.0.1,10.0.0.2");
    try {
      org.apache.spark.rdd.RDD<?> input = salesScanInput();
      int gone = 0;
      for (Partition partition : input.partitions()) {
        List<String> preferred = CollectionConverters.asJava(input.preferredLocations(partition));
        List<String> owners = hosts((FilePartition) partition);
        if (owners.contains("10.0.0.3")) {
          gone++;
          assertThat(preferred).as("a task of the node that left").isEmpty();
        } else {
          assertThat(preferred).hasSize(1).isSubsetOf("10.0.0.1", "10.0.0.2");
        }
      }
      assertThat(gone).as("tasks of files on 10.0.0.3").isPositive();
    } finally {
      spark.sparkContext().hadoopConfiguration().unset("rubix.cluster.nodes");
    }
  }

  @Test
  void answersEqualSparksOwnWithAdaptiveExecution() {
    String query = "SELECT i.name, count(*) AS n, sum(s.amount) AS total FROM parquet.`" + sales + "` s JOIN parquet.`" + items
        + "` i ON s.item = i.item WHERE s.id % 5 <> 0 GROUP BY i.name ORDER BY i.name";
    List<String> packed = rows(spark.sql(query));
    spark.conf().set(OwnerPackingRule.ENABLED, "false");
    List<String> plain;
    try {
      plain = rows(spark.sql(query));
    } finally {
      spark.conf().unset(OwnerPackingRule.ENABLED);
    }
    assertThat(packed).hasSize(97).isEqualTo(plain);
    Dataset<Row> run = spark.sql(query);
    rows(run);
    List<SparkPlan> scans = new ArrayList<>();
    collectScans(run.queryExecution().executedPlan(), scans);
    assertThat(scans).hasSize(2).allSatisfy(scan -> assertThat(scan).isInstanceOf(OwnerPackedScanExec.class));
  }

  /** The input RDD of a scan of the sales table, as run. */
  private org.apache.spark.rdd.RDD<?> salesScanInput() {
    Dataset<Row> scan = spark.read().parquet(sales);
    scan.collectAsList();
    List<SparkPlan> scans = new ArrayList<>();
    collectScans(scan.queryExecution().executedPlan(), scans);
    return ((FileSourceScanExec) scans.get(0)).inputRDD();
  }

  /** The tasks of the one file scan of {@code data}, as run (adaptive execution plans stages as it runs). */
  private static List<FilePartition> scanTasks(Dataset<Row> data) {
    data.collectAsList();
    SparkPlan plan = data.queryExecution().executedPlan();
    List<SparkPlan> scans = new ArrayList<>();
    collectScans(plan, scans);
    assertThat(scans).hasSize(1);
    FileSourceScanExec scan = (FileSourceScanExec) scans.get(0);
    List<FilePartition> tasks = new ArrayList<>();
    for (Partition partition : scan.inputRDD().partitions()) {
      tasks.add((FilePartition) partition);
    }
    return tasks;
  }

  private static void collectScans(SparkPlan plan, List<SparkPlan> out) {
    if (plan instanceof FileSourceScanExec) {
      out.add(plan);
    }
    if (plan instanceof AdaptiveSparkPlanExec adaptive) {
      collectScans(adaptive.executedPlan(), out);
    }
    if (plan instanceof QueryStageExec stage) {
      collectScans(stage.plan(), out);
    }
    CollectionConverters.asJava(plan.children()).forEach(child -> collectScans(child, out));
  }

  private static List<String> pieces(List<FilePartition> tasks) {
    return tasks.stream().flatMap(t -> Arrays.stream(t.files())).map(f -> f.urlEncodedPath() + "@" + f.start() + "+" + f.length())
        .toList();
  }

  private static List<String> hosts(FilePartition task) {
    return Arrays.stream(task.files()).map(PartitionedFile::locations).flatMap(Arrays::stream).distinct().toList();
  }

  private static List<String> rows(Dataset<Row> data) {
    return data.collectAsList().stream().map(Row::toString).toList();
  }
}
