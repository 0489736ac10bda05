package io.rubix.spark.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.spark.testing.TpcdsData;
import io.rubix.spark.testing.TpcdsQueries;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * An S3 server in its own JVM holding TPC-DS tables in ORC, each written in a given number of files
 * through plain S3A by a local Spark session, and that session's answers to the queries: what a
 * cluster's answers are compared with. The files are renamed to {@code part-NNNNN.<codec>.orc}
 * (without the write job's random UUID), so that their split owners are the same in every run.
 *
 * <p>Or the same tables as Iceberg tables ({@link Format#ICEBERG}: Parquet data files, a Hadoop catalog
 * named {@value #CATALOG} over {@value #WAREHOUSE}, read with its default {@code HadoopFileIO} over
 * whatever file system the session names for {@code s3a}). Iceberg names its data files itself, with a
 * random UUID in each name: their split owners differ from run to run.
 */
final class TpcdsOnS3 implements AutoCloseable {
  static final String BUCKET = "tpcds";
  /** The Iceberg tables' catalog (Spark's catalog name) and its warehouse; the tables are {@code iceberg.db.<table>}. */
  static final String CATALOG = "iceberg";
  static final String WAREHOUSE = "s3a://" + BUCKET + "/iceberg";

  /** How the tables are stored. */
  enum Format { ORC, ICEBERG }

  private static final Pattern SPARK_FILE = Pattern.compile("(part-\\d+)-[0-9a-f-]+-c\\d+(\\..+)");

  private final S3ServerProcess server;
  private final Format format;
  private final Map<String, Integer> tables;
  private final List<String> queries;
  private List<List<String>> direct;
  private long directInputBytes;

  private TpcdsOnS3(S3ServerProcess server, Format format, Map<String, Integer> tables, List<String> queries) {
    this.server = server;
    this.format = format;
    this.tables = Map.copyOf(tables);
    this.queries = List.copyOf(queries);
  }

  /**
   * Starts the server (its log and objects under {@code dir}), writes {@code tables} (name to number of
   * files) at {@code scale} and answers {@code queries} from them directly.
   */
  static TpcdsOnS3 start(Path dir, double scale, Map<String, Integer> tables, List<String> queries) throws IOException, TimeoutException {
    return start(dir, scale, tables, queries, Format.ORC);
  }

  /** As {@link #start(Path, double, Map, List)}, the tables stored as {@code format}. */
  static TpcdsOnS3 start(Path dir, double scale, Map<String, Integer> tables, List<String> queries, Format format)
      throws IOException, TimeoutException {
    requireNonNull(format, "format is null");
    requireNonNull(tables, "tables is null");
    requireNonNull(queries, "queries is null");
    S3ServerProcess server = S3ServerLauncher.start(dir.resolve("logs"), List.of("--bucket", BUCKET, "--dir", dir.resolve("s3").toString()));
    TpcdsOnS3 data = new TpcdsOnS3(server, format, tables, queries);
    try {
      data.writeAndAnswerDirectly(scale);
      return data;
    } catch (IOException | TimeoutException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  S3ServerProcess server() {
    return server;
  }

  /** The answers of plain S3A in local mode, one list of rows per query. */
  List<List<String>> direct() {
    return direct;
  }

  /** Spark's input bytes over all queries, read directly. */
  long directInputBytes() {
    return directInputBytes;
  }

  /**
   * The Spark settings a session needs to read the tables (with {@code spark.hadoop.*} settings for
   * {@code s3a}): for Iceberg tables, their catalog's; for ORC none.
   */
  Map<String, String> sessionSettings() {
    if (format != Format.ICEBERG) {
      return Map.of();
    }
    String prefix = "spark.sql.catalog." + CATALOG;
    return Map.of(prefix, "org.apache.iceberg.spark.SparkCatalog", prefix + ".type", "hadoop", prefix + ".warehouse", WAREHOUSE);
  }

  /** Registers the tables as views of {@code session} and runs the queries: one list of rows per query. */
  List<List<String>> run(SparkSession session) {
    return run(session, Map.of());
  }

  /** As {@link #run(SparkSession)}, the tables read with {@code options} (Spark's read options). */
  List<List<String>> run(SparkSession session, Map<String, String> options) {
    for (String table : tables.keySet()) {
      DataFrameReader reader = session.read().options(options);
      (format == Format.ICEBERG ? reader.table(CATALOG + ".db." + table) : reader.orc(path(table))).createOrReplaceTempView(table);
    }
    return queries.stream().map(q -> answer(session, q)).toList();
  }

  /** Registers each table as a view of {@code session}, read from {@code location.apply(table)}. */
  void register(SparkSession session, Function<String, String> location) {
    tables.keySet().forEach(table -> session.read().orc(location.apply(table)).createOrReplaceTempView(table));
  }

  /** The rows of {@code query} over the views {@link #register} made. */
  static List<String> answer(SparkSession session, String query) {
    return rows(session.sql(TpcdsQueries.text(query)));
  }

  /** The tables' names. */
  Set<String> tables() {
    return tables.keySet();
  }

  /** The queries, in the order {@link #direct()} answers them. */
  List<String> queries() {
    return queries;
  }

  /** The data files of every table, as listed with {@code conf} (the caching file system's listings carry its block locations). */
  List<LocatedFileStatus> files(Configuration conf) throws IOException {
    List<LocatedFileStatus> files = new ArrayList<>();
    for (String table : tables.keySet()) {
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(format == Format.ICEBERG ? WAREHOUSE + "/db/" + table + "/data" : path(table));
      RemoteIterator<LocatedFileStatus> listed = dir.getFileSystem(conf).listFiles(dir, format == Format.ICEBERG);
      while (listed.hasNext()) {
        LocatedFileStatus file = listed.next();
        if (!file.getPath().getName().startsWith("_")) {
          files.add(file);
        }
      }
    }
    return files;
  }

  static String path(String table) {
    return "s3a://" + BUCKET + "/orc/" + table;
  }

  private void writeAndAnswerDirectly(double scale) throws IOException, TimeoutException {
    SparkSession.Builder builder = SparkSession.builder().master("local[2]").appName("rubix-cluster-data")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2");
    server.s3aSettings().forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    sessionSettings().forEach(builder::config);
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
      for (Map.Entry<String, Integer> table : tables.entrySet()) {
        Dataset<Row> rows = TpcdsData.table(local, table.getKey(), scale).repartition(table.getValue());
        if (format == Format.ICEBERG) {
          // unpartitioned and unsorted: each of the write's tasks writes one data file
          rows.writeTo(CATALOG + ".db." + table.getKey()).using("iceberg").tableProperty("write.format.default", "parquet").createOrReplace();
        } else {
          rows.write().mode(SaveMode.Overwrite).orc(path(table.getKey()));
          dropJobIds(local.sparkContext().hadoopConfiguration(), path(table.getKey()));
        }
      }
      local.sparkContext().listenerBus().waitUntilEmpty();
      input.set(0);
      direct = run(local);
      local.sparkContext().listenerBus().waitUntilEmpty();
      directInputBytes = input.get();
    } finally {
      local.stop();
      // a cluster session's driver must not get this session's plain S3A instances
      FileSystem.closeAll();
    }
  }

  /** Renames {@code part-00003-<job uuid>-c000.zstd.orc} to {@code part-00003.zstd.orc}. */
  private static void dropJobIds(Configuration conf, String table) throws IOException {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(table);
    FileSystem fs = dir.getFileSystem(conf);
    for (FileStatus file : fs.listStatus(dir)) {
      Matcher name = SPARK_FILE.matcher(file.getPath().getName());
      if (name.matches()) {
        org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path(dir, name.group(1) + name.group(2));
        if (!fs.rename(file.getPath(), target)) {
          throw new IOException("Could not rename " + file.getPath() + " to " + target);
        }
      }
    }
  }

  private static List<String> rows(Dataset<Row> data) {
    return data.collectAsList().stream().map(Row::toString).toList();
  }

  @Override
  public void close() {
    server.close();
  }
}
