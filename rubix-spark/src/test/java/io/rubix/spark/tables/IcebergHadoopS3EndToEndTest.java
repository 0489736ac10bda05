package io.rubix.spark.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.iceberg.ContentScanTask;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.spark.Partition;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.datasources.v2.DataSourceRDDPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An Iceberg table (iceberg-spark-runtime 1.10 on Spark 4.0, Parquet) in a Hadoop catalog on the S3
 * server, read with the catalog's default {@code HadoopFileIO} over {@code CachingS3AFileSystem}, with
 * the rule set docs/operations.md gives for it: {@code metadata/version-hint.text} (overwritten in
 * place at every commit) strict, everything else under the warehouse immutable.
 *
 * <p>Three catalogs name the same warehouse: {@code direct} reads through plain S3A, {@code rubix}
 * through the cache, {@code located} (made once the table's files exist) through the cache with a
 * static cluster of two nodes (for block locations only). A Hadoop {@code FileSystem} instance is shared by scheme and bucket, so each switch
 * closes the JVM's instances and the next catalog's configuration makes the new one. Table caching in
 * the catalogs is off, so every query loads the table from its metadata, as a new application would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IcebergHadoopS3EndToEndTest {
  private static final String BUCKET = "warehouse";
  private static final String WAREHOUSE = "s3a://" + BUCKET + "/iceberg";
  /** {@code rubix.cache.filesplit.size}'s default: the unit of ownership. */
  private static final long SPLIT_SIZE = 256L << 20;
  private static final Predicate<String> DATA = key -> key.contains("/data/");
  private static final Predicate<String> METADATA = key -> key.contains("/metadata/");
  private static final Predicate<String> VERSION_HINT = key -> key.endsWith("/metadata/version-hint.text");

  @TempDir
  static Path temp;
  private S3ServerProcess server;
  private SparkSession spark;
  /** The Hadoop settings of catalog {@code rubix}, which {@code located} adds a cluster to. */
  private Map<String, String> rubix;

  @BeforeAll
  void start() throws IOException {
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET));
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-iceberg")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2");
    server.s3aSettings().forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    catalog("direct", Map.of("fs.s3a.impl", S3AFileSystem.class.getName())).forEach(builder::config);
    rubix = new LinkedHashMap<>(icebergRuleSet());
    rubix.put("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    rubix.put("rubix.cache.dirs", temp.resolve("cache").toString());
    catalog("rubix", rubix).forEach(builder::config);
    spark = builder.getOrCreate();
  }

  /** The Spark settings of Hadoop catalog {@code name} over the warehouse, with {@code hadoop} as its Hadoop settings. */
  private static Map<String, String> catalog(String name, Map<String, String> hadoop) {
    String prefix = "spark.sql.catalog." + name;
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(prefix, "org.apache.iceberg.spark.SparkCatalog");
    settings.put(prefix + ".type", "hadoop");
    settings.put(prefix + ".warehouse", WAREHOUSE);
    settings.put(prefix + ".cache-enabled", "false");
    hadoop.forEach((key, value) -> settings.put(prefix + ".hadoop." + key, value));
    return settings;
  }

  /** docs/operations.md's rule set for Iceberg tables of a Hadoop catalog in this bucket. */
  static Map<String, String> icebergRuleSet() {
    Map<String, String> rules = new LinkedHashMap<>();
    rules.put("rubix.cache.rules", "iceberg_hint,iceberg");
    rules.put("rubix.cache.rule.iceberg_hint.paths", "s3a://" + BUCKET + "/**/metadata/version-hint.text");
    rules.put("rubix.cache.rule.iceberg.paths", "s3a://" + BUCKET + "/");
    rules.put("rubix.cache.rule.iceberg.freshness", "immutable");
    return rules;
  }

  /** Cache nodes {@code nodes} ({@code name=host,...}) that do not run here: for block locations only (no peer reads). */
  private static Map<String, String> staticCluster(String nodes) {
    Map<String, String> cluster = new LinkedHashMap<>();
    cluster.put("rubix.cluster.manager", "static");
    cluster.put("rubix.cluster.nodes", nodes);
    cluster.put("rubix.network.transfer.enabled", "false");
    return cluster;
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * Direct, cold and warm passes answer the same; the warm pass fetches nothing, and sends a HEAD
   * only for the version hint and for the next metadata version (which is not there): no data file and
   * no existing metadata file is asked for.
   */
  @Test
  void hadoopFileIoTableReadsRightAndWarmsFully() throws IOException {
    createTable("events");
    Pass direct = pass("direct", "events", S3AFileSystem.class, true);
    Pass cold = pass("rubix", "events", CachingS3AFileSystem.class, true);
    Pass warm = pass("rubix", "events", CachingS3AFileSystem.class, false);

    Map<String, Predicate<String>> classes = new LinkedHashMap<>();
    classes.put("data", DATA);
    classes.put("metadata", METADATA);
    String report = "iceberg: direct " + direct.served().describe(classes) + "\n  cold " + cold.served().describe(classes) + "\n  warm "
        + warm.served().describe(classes) + "\n  cold requests: " + cold.served().of(key -> true) + "\n  warm requests: "
        + warm.served().of(key -> true);
    System.err.println(report);

    assertThat(direct.rows()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    assertThat(cold.rows()).as(report).isEqualTo(direct.rows());
    assertThat(warm.rows()).as(report).isEqualTo(direct.rows());
    assertThat(cold.served().gets(DATA)).as("cold fetches data files: %s", report).isPositive();
    assertThat(warm.served().gets(key -> true)).as("warm: nothing fetched: %s", report).isZero();
    assertThat(warm.served().heads(DATA)).as("warm: no HEAD for a data file: %s", report).isZero();
    assertThat(warm.served().heads(METADATA.and(VERSION_HINT.negate()).and(key -> !nextVersionProbe(key, 5))))
        .as("warm: HEADs only for the hint and the next version: %s", report).isZero();
  }

  /** Whether {@code key} is a metadata file of a version after {@code current}: Hadoop tables probe for it at every load. */
  private static boolean nextVersionProbe(String key, int current) {
    String name = key.substring(key.lastIndexOf('/') + 1);
    if (!name.startsWith("v")) {
      return false;
    }
    int end = 1;
    while (end < name.length() && Character.isDigit(name.charAt(end))) {
      end++;
    }
    return end > 1 && Integer.parseInt(name.substring(1, end)) > current;
  }

  /**
   * Iceberg asks block locations only of {@code hdfs} file systems unless the read option
   * {@code locality} (or {@code spark.sql.iceberg.locality.enabled}) is true: then each scan task
   * prefers the hosts RubiX reports for its files, their split owners.
   */
  @Test
  void scanTasksPreferTheOwnersOnlyWithTheLocalityOption() throws IOException {
    createTable("located_events");
    // Iceberg names its files with a random id, so which node owns each one varies from run to run: the
    // cluster is chosen once the files exist, so that each of its two nodes owns some
    Cluster cluster = twoNodesOwningFiles(dataFiles("located_events"));
    Map<String, String> located = new LinkedHashMap<>(rubix);
    located.putAll(staticCluster(cluster.nodes()));
    located.put("rubix.cache.dirs", temp.resolve("cache-located").toString());
    catalog("located", located).forEach(spark.conf()::set);
    useCatalogFileSystem();
    // one file per task: a task of several small files would prefer every owner among them
    List<ScanLocations> byDefault = scanLocations(cluster, spark.read().option("split-size", "1").table("located.db.located_events"));
    server.reset();
    List<ScanLocations> withOption = scanLocations(cluster, spark.read().option("locality", "true").option("split-size", "1")
        .table("located.db.located_events"));
    ServedRequests planning = new ServedRequests(server.requests());
    server.reset();
    spark.conf().set("spark.sql.iceberg.locality.enabled", "true");
    List<ScanLocations> withSessionConf;
    try {
      withSessionConf = scanLocations(cluster, spark.read().option("split-size", "1").table("located.db.located_events"));
    } finally {
      spark.conf().unset("spark.sql.iceberg.locality.enabled");
    }
    ServedRequests planningAgain = new ServedRequests(server.requests());
    List<ScanLocations> packed = scanLocations(cluster, spark.read().option("locality", "true").table("located.db.located_events"));

    String report = "iceberg locality: default " + byDefault + "\n  locality=true " + withOption + "\n  session conf " + withSessionConf
        + "\n  locality=true, Iceberg's default split size " + packed + "\n  planning with locality=true: "
        + planning.describe(Map.of("data", DATA)) + "; again in the same driver: " + planningAgain.describe(Map.of("data", DATA));
    System.err.println(report);
    assertThat(byDefault).as(report).hasSize(4).allSatisfy(scan -> assertThat(scan.preferred()).isEmpty());
    assertThat(withOption).as(report).hasSize(4).allSatisfy(scan -> assertThat(scan.preferred()).containsExactlyElementsOf(scan.owners()));
    assertThat(withOption).flatExtracting(ScanLocations::owners).as("both nodes own files: %s", report)
        .containsAll(cluster.hosts());
    assertThat(planning.heads(DATA)).as("the first planning asks each data file's status: %s", report).isEqualTo(4);
    assertThat(planningAgain.heads(DATA)).as("immutable: the statuses are trusted from then on: %s", report).isZero();
    assertThat(withSessionConf).as("Iceberg plans tasks in parallel: their order varies: %s", report).containsExactlyInAnyOrderElementsOf(withOption);
    assertThat(packed).as("small files packed together: a task prefers every owner among its files: %s", report)
        .hasSizeLessThan(4).allSatisfy(scan -> assertThat(scan.preferred()).containsExactlyElementsOf(scan.owners()));
    FileSystem.closeAll();
  }

  /** Closes the file systems, so the next catalog's configuration makes the bucket's next one. */
  private void useCatalogFileSystem() throws IOException {
    FileSystem.closeAll();
  }

  /** The data files of table {@code db.<name>}, listed through plain S3A. */
  private List<String> dataFiles(String name) throws IOException {
    Configuration conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    conf.set("fs.s3a.impl", S3AFileSystem.class.getName());
    org.apache.hadoop.fs.Path data = new org.apache.hadoop.fs.Path(WAREHOUSE + "/db/" + name + "/data");
    List<String> files = new ArrayList<>();
    try (FileSystem fs = FileSystem.newInstance(data.toUri(), conf)) {
      for (FileStatus status : fs.listStatus(data)) {
        files.add(status.getPath().toString());
      }
    }
    assertThat(files).as("data files of %s", name).hasSize(4);
    return files;
  }

  /**
   * The first of the two-node clusters {@code a=127.0.0.2,b<k>=127.0.0.<k>} ({@code k} from 3) where each
   * node owns at least one of {@code files} (each within its first split): with 4 files, 7 in 8 candidates are.
   */
  private static Cluster twoNodesOwningFiles(List<String> files) {
    for (int k = 3; k < 64; k++) {
      Cluster cluster = new Cluster("a=127.0.0.2,b" + k + "=127.0.0." + k, List.of("127.0.0.2", "127.0.0." + k));
      TreeSet<String> owners = new TreeSet<>();
      try (ClusterLocality locality = locality(cluster)) {
        files.forEach(file -> locality.owners(file, 0).stream().map(ClusterNode::host).forEach(owners::add));
      }
      if (owners.containsAll(cluster.hosts())) {
        return cluster;
      }
    }
    throw new AssertionError("No two-node cluster splits the ownership of " + files);
  }

  /** Where {@code cluster} places splits, as the cache's file systems configured with it do. */
  private static ClusterLocality locality(Cluster cluster) {
    Configuration conf = new Configuration(false);
    staticCluster(cluster.nodes()).forEach(conf::set);
    return ClusterSetup.locality(conf);
  }

  /** The preferred hosts of every partition of the scan of {@code data}, against the owners of its files in {@code cluster}. */
  private List<ScanLocations> scanLocations(Cluster cluster, Dataset<Row> data) {
    SparkPlan plan = data.queryExecution().sparkPlan();
    List<BatchScanExec> scans = new ArrayList<>();
    CollectionConverters.asJava(plan.collectLeaves()).forEach(leaf -> {
      if (leaf instanceof BatchScanExec scan) {
        scans.add(scan);
      }
    });
    assertThat(scans).hasSize(1);
    RDD<?> rdd = scans.get(0).inputRDD();
    List<ScanLocations> locations = new ArrayList<>();
    try (ClusterLocality locality = locality(cluster)) {
      for (Partition partition : rdd.partitions()) {
        List<String> preferred = new ArrayList<>(CollectionConverters.asJava(rdd.preferredLocations(partition)));
        TreeSet<String> owners = new TreeSet<>();
        for (InputPartition input : CollectionConverters.asJava(((DataSourceRDDPartition) partition).inputPartitions())) {
          for (ScanTask task : taskGroup(input).tasks()) {
            ContentScanTask<?> content = (ContentScanTask<?>) task;
            for (long split = content.start() / SPLIT_SIZE; split <= (content.start() + content.length() - 1) / SPLIT_SIZE; split++) {
              locality.owners(content.file().location(), split).stream().map(ClusterNode::host).forEach(owners::add);
            }
          }
        }
        preferred.sort(null);
        locations.add(new ScanLocations(preferred, List.copyOf(owners)));
      }
    }
    return locations;
  }

  /** The Iceberg task group of a partition (its class is package-private in Iceberg; the method public). */
  private static ScanTaskGroup<?> taskGroup(InputPartition partition) {
    try {
      Method method = partition.getClass().getMethod("taskGroup");
      method.setAccessible(true);
      return (ScanTaskGroup<?>) method.invoke(partition);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("No task group in " + partition.getClass(), e);
    }
  }

  /** Creates {@code db.<name>} through plain S3A: 4 commits of 1,500 rows in 1 file each (metadata v1 the creation, v2 to v5 the commits). */
  private void createTable(String name) throws IOException {
    useCatalogFileSystem();
    spark.sql("CREATE TABLE direct.db." + name + " (id BIGINT, k INT, v STRING) USING iceberg");
    for (int commit = 1; commit <= 3; commit++) {
      long from = (commit - 1) * 1_500L;
      spark.sql("INSERT INTO direct.db." + name + " SELECT id, CAST(id % 7 AS INT) AS k, concat('v', id) AS v FROM range(" + from + ", "
          + (from + 1_500) + ", 1, 1)");
    }
    spark.sql("INSERT INTO direct.db." + name + " SELECT id, CAST(id % 7 AS INT), concat('w', id) FROM range(4500, 6000, 1, 1)");
  }

  /** Both queries through catalog {@code catalog}, on a new file system instance when {@code newInstance}, and what the server served. */
  private Pass pass(String catalog, String table, Class<? extends FileSystem> expected, boolean newInstance) throws IOException {
    if (newInstance) {
      useCatalogFileSystem();
    }
    server.reset();
    String name = catalog + ".db." + table;
    List<List<String>> rows = List.of(
        rows("SELECT k, count(*) AS n, sum(id) AS s, max(v) AS m FROM " + name + " GROUP BY k ORDER BY k"),
        rows("SELECT count(*) AS n, sum(length(v)) AS l FROM " + name + " WHERE id % 3 = 0"));
    ServedRequests served = new ServedRequests(server.requests());
    server.reset();
    FileSystem fs = new org.apache.hadoop.fs.Path(WAREHOUSE).getFileSystem(new Configuration(false));
    assertThat(fs).as("the pass read through the catalog's file system").isExactlyInstanceOf(expected);
    return new Pass(rows, served);
  }

  private List<String> rows(String sql) {
    return spark.sql(sql).collectAsList().stream().map(Row::toString).toList();
  }

  /** A scan task's preferred hosts as Spark's scheduler sees them, and the owners of the splits its files cover. */
  private record ScanLocations(List<String> preferred, List<String> owners) {}

  /** A static cluster's {@code rubix.cluster.nodes} and its hosts. */
  private record Cluster(String nodes, List<String> hosts) {}

  private record Pass(List<List<String>> rows, ServedRequests served) {}
}
