package io.rubix.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.ClientConfig;
import io.rubix.core.config.CacheConfig;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spark.testing.TpcdsData;
import io.rubix.spark.testing.TpcdsQueries;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4 local mode reading ORC and Parquet tables from an S3 server (its own JVM) through
 * {@code CachingS3AFileSystem}, with {@link RubixPlugin} running the executor's BookKeeper: answers
 * equal those with caching off, and a warm run is served from the cache (counted at the server).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkS3EndToEndTest {
  private static final double SCALE = 0.01;
  private static final String BUCKET = "tpcds";
  private static final List<String> TABLES = List.of("date_dim", "store_sales", "item", "store", "household_demographics", "time_dim");
  private static final List<String> ORC_QUERIES = List.of("q3", "q42", "q52", "q55", "q96");
  private static final List<String> PARQUET_QUERIES = List.of("q3", "q55");

  @TempDir
  static Path temp;
  private S3ServerProcess server;
  private SparkSession spark;
  private int bookKeeperPort;
  private final AtomicLong inputBytes = new AtomicLong();

  @BeforeAll
  void start() throws IOException {
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET, "--dir", temp.resolve("s3").toString()));
    bookKeeperPort = freePort();
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-e2e")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.plugins", RubixPlugin.class.getName())
        .config(RubixDriverPlugin.NODES_FILE, temp.resolve("nodes.txt").toString());
    for (Map.Entry<String, String> entry : sparkSettings(server, temp.resolve("cache"), bookKeeperPort).entrySet()) {
      builder.config(entry.getKey(), entry.getValue());
    }
    spark = builder.getOrCreate();
    spark.sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
        if (taskEnd.taskMetrics() != null) {
          inputBytes.addAndGet(taskEnd.taskMetrics().inputMetrics().bytesRead());
        }
      }
    });
    for (String table : TABLES) {
      Dataset<Row> data = TpcdsData.table(spark, table, SCALE).repartition(2);
      data.write().mode(SaveMode.Overwrite).orc(path("orc", table));
      if (List.of("date_dim", "store_sales", "item").contains(table)) {
        data.write().mode(SaveMode.Overwrite).parquet(path("parquet", table));
      }
    }
  }

  /** Spark settings for S3A through RubiX against {@code server}, with S3A's magic committer for writes. */
  static Map<String, String> sparkSettings(S3ServerProcess server, Path cacheDir, int bookKeeperPort) {
    Map<String, String> settings = new java.util.LinkedHashMap<>();
    server.s3aSettings().forEach((key, value) -> settings.put("spark.hadoop." + key, value));
    settings.put("spark.hadoop.fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    settings.put("spark.hadoop.rubix.cache.dirs", cacheDir.toString());
    settings.put("spark.hadoop.rubix.network.bookkeeper.server.port", Integer.toString(bookKeeperPort));
    settings.put("spark.hadoop.rubix.bookkeeper.metrics.port", "-1");
    settings.put("spark.hadoop.rubix.network.transfer.server.port", "-1");
    settings.put("spark.hadoop.fs.s3a.committer.name", "magic");
    settings.put("spark.hadoop.fs.s3a.committer.magic.enabled", "true");
    settings.put("spark.hadoop.mapreduce.outputcommitter.factory.scheme.s3a", "org.apache.hadoop.fs.s3a.commit.S3ACommitterFactory");
    settings.put("spark.sql.sources.commitProtocolClass", "org.apache.spark.internal.io.cloud.PathOutputCommitProtocol");
    settings.put("spark.sql.parquet.output.committer.class", "org.apache.spark.internal.io.cloud.BindingParquetOutputCommitter");
    return settings;
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

  @Test
  void orcTpcdsQueriesMatchUncachedAndWarmRunServesNoData() throws IOException, TimeoutException {
    compareAndCountWarm("orc", ORC_QUERIES);
  }

  @Test
  void parquetTpcdsQueriesMatchUncachedAndWarmRunServesNoData() throws IOException, TimeoutException {
    compareAndCountWarm("parquet", PARQUET_QUERIES);
  }

  @Test
  void writesGoThroughTheS3ACommitterAndReadBack() throws IOException {
    String target = "s3a://" + BUCKET + "/written/sales_by_store";
    Dataset<Row> aggregated = spark.read().orc(path("orc", "store_sales"))
        .groupBy("ss_store_sk").count().orderBy("ss_store_sk");
    List<String> expected = rows(aggregated);
    aggregated.write().mode(SaveMode.Overwrite).parquet(target);

    String success = readText(target + "/_SUCCESS");
    assertThat(success).as("_SUCCESS of an S3A committer is a JSON manifest").contains("\"committer\":\"magic\"");
    assertThat(rows(spark.read().parquet(target).orderBy("ss_store_sk"))).isEqualTo(expected);
    // a second write replaces the data and the cache never serves the old version
    Dataset<Row> doubled = aggregated.selectExpr("ss_store_sk", "count * 2 AS count");
    doubled.write().mode(SaveMode.Overwrite).parquet(target);
    assertThat(rows(spark.read().parquet(target).orderBy("ss_store_sk"))).isEqualTo(rows(doubled));
  }

  @Test
  void pluginRunsABookKeeperAndPublishesExecutorHosts() throws IOException {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    assertThat(conf.get("rubix.cluster.embedded.mode")).isEqualTo("false");
    assertThat(conf.get(RubixDriverPlugin.NODES_KEY)).isNotBlank();
    List<String> hosts = Files.readAllLines(temp.resolve("nodes.txt"));
    assertThat(hosts).isNotEmpty();
    // the published list is the session's cluster: split owners are the executors' hosts
    assertThat(conf.get("rubix.cluster.manager")).isEqualTo("file");
    org.apache.hadoop.fs.Path table = new org.apache.hadoop.fs.Path(path("orc", "item"));
    FileSystem fs = table.getFileSystem(conf);
    LocatedFileStatus part = firstOrcFile(fs, table);
    assertThat(fs.getFileBlockLocations(part, 0, part.getLen())[0].getHosts()).containsAnyElementsOf(hosts);
    ClientConfig client = ClientConfig.from(SparkHadoopConf.from(spark.sparkContext().getConf()));
    assertThat(client.port()).isEqualTo(bookKeeperPort);
    assertThat(RubixExecutorPlugin.probe(client, CacheConfig.blockSize(conf))).as("a BookKeeper answers on the configured port").isNotNull();
  }

  private static LocatedFileStatus firstOrcFile(FileSystem fs, org.apache.hadoop.fs.Path dir) throws IOException {
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(dir, false);
    while (files.hasNext()) {
      LocatedFileStatus file = files.next();
      if (file.getPath().getName().endsWith(".orc")) {
        return file;
      }
    }
    throw new AssertionError("no ORC file under " + dir);
  }

  private void compareAndCountWarm(String format, List<String> queries) throws IOException, TimeoutException {
    for (String table : TABLES) {
      if (format.equals("orc") || List.of("date_dim", "store_sales", "item").contains(table)) {
        spark.read().format(format).load(path(format, table)).createOrReplaceTempView(table);
      }
    }
    caching(false);
    long directInput = inputBytes();
    List<List<String>> direct = run(queries);
    S3ServerControl.Counters directCounters = server.reset();
    directInput = inputBytes() - directInput;
    caching(true);
    long coldInput = inputBytes();
    List<List<String>> cold = run(queries);
    S3ServerControl.Counters coldCounters = server.reset();
    coldInput = inputBytes() - coldInput;
    caching(true);
    long warmInput = inputBytes();
    List<List<String>> warm = run(queries);
    S3ServerControl.Counters warmCounters = server.reset();
    warmInput = inputBytes() - warmInput;

    String counters = "direct " + directCounters + ", cold " + coldCounters + ", warm " + warmCounters + "; input bytes in Spark's task metrics: direct "
        + directInput + ", cold " + coldInput + ", warm " + warmInput;
    System.err.println(format + ": " + counters);
    assertThat(direct).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    assertThat(cold).isEqualTo(direct);
    assertThat(warm).isEqualTo(direct);
    assertThat(coldCounters.bytes()).as("cold run reads from S3: %s", counters).isPositive();
    assertThat(warmCounters.bytes())
        .as("bytes served on the warm run: %s", counters)
        .isLessThanOrEqualTo(coldCounters.bytes() / 100);
    // tasks report the bytes they read, wherever they came from (Spark's UI showed 0 B for tasks served by
    // the cache, and the blocks the cache fetched for cold ones), vectored reads included. Plain S3A is no
    // yardstick: it counts ORC's vectored reads in no task's thread (ORC: 0.56 MB against 5 MB read) and
    // the bytes it skips on a forward seek as read (Parquet: 1.2x). Cold counts up to 7% less than warm:
    // S3A adds a source stream's bytes to the thread's statistics when the stream closes, inside a later read.
    // Once, on a loaded machine, warm counted 3.6% less than cold (4,863,443 against 5,046,045; not explained
    // yet), so the band is 10% either way.
    assertThat(coldInput).as("cold input bytes: %s", counters).isBetween(warmInput * 9 / 10, warmInput * 11 / 10);
    assertThat(warmInput).as("warm input bytes: %s", counters).isGreaterThanOrEqualTo(directInput * 4 / 5);
  }

  /** The input bytes of every task that ended so far, as Spark's task metrics (and UI) report them. */
  private long inputBytes() throws TimeoutException {
    spark.sparkContext().listenerBus().waitUntilEmpty();
    return inputBytes.get();
  }

  /**
   * Switches caching for the following reads: drops the JVM's file system instances and creates the
   * bucket's next one here with the session's setting, so whichever thread asks next gets it.
   */
  private void caching(boolean enabled) throws IOException {
    spark.conf().set("rubix.cache.enabled", Boolean.toString(enabled));
    FileSystem.closeAll();
    FileSystem fs = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/").getFileSystem(spark.sessionState().newHadoopConf());
    assertThat(fs).isInstanceOf(CachingS3AFileSystem.class);
    assertThat(((CachingS3AFileSystem) fs).cacheEngine() != null).as("caching enabled").isEqualTo(enabled);
  }

  private List<List<String>> run(List<String> queries) {
    return queries.stream().map(q -> rows(spark.sql(TpcdsQueries.text(q)))).toList();
  }

  private static List<String> rows(Dataset<Row> data) {
    return data.collectAsList().stream().map(Row::toString).toList();
  }

  private String readText(String file) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file);
    FileSystem fs = path.getFileSystem(spark.sessionState().newHadoopConf());
    try (var in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String path(String format, String table) {
    return "s3a://" + BUCKET + "/" + format + "/" + table;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
