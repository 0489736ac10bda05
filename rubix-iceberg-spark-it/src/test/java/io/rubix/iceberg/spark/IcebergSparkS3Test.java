package io.rubix.iceberg.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.iceberg.CachingFileIO;
import io.rubix.spi.config.IcebergKeys;
import io.rubix.testing.S3Server;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4.0 and Iceberg 1.10 with a JDBC catalog whose {@code io-impl} is CachingFileIO over S3FileIO, on
 * the S3 test server (its own JVM, which counts what it serves): a Parquet table written through the
 * FileIO and read twice answers as the same query over the rows in memory; the first read asks no more
 * of the store than S3FileIO alone (catalog {@code direct}, the same tables), the second nothing (0 GETs,
 * 0 HEADs), although the catalogs keep no table between queries: each query loads the table's metadata
 * file and manifest list, which Iceberg opens without a length, as a new application would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IcebergSparkS3Test {
  private static final String CATALOG = "spark.sql.catalog.lake";
  private static final String QUERY = "SELECT category, count(*), sum(amount), max(id) FROM %s WHERE id %% 3 = 0 GROUP BY category ORDER BY category";

  @TempDir
  static Path temp;
  private S3ServerProcess server;
  private SparkSession spark;

  @BeforeAll
  void start() throws IOException {
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", "lake", "--dir", temp.resolve("s3").toString()));
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-iceberg")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2");
    catalog("lake").forEach(builder::config);
    builder.config(CATALOG + ".io-impl", CachingFileIO.class.getName())
        .config(CATALOG + "." + IcebergKeys.DELEGATE_IO_IMPL.name(), S3FileIO.class.getName())
        .config(CATALOG + ".rubix.cache.dirs", temp.resolve("cache").toString())
        .config(CATALOG + ".rubix.cache.jmx.enabled", "false");
    catalog("direct").forEach(builder::config);
    builder.config("spark.sql.catalog.direct.io-impl", S3FileIO.class.getName());
    spark = builder.getOrCreate();
  }

  /** Catalog {@code name}: the JDBC catalog of the test's tables, uncached, S3FileIO's settings for the server. */
  private Map<String, String> catalog(String name) {
    String prefix = "spark.sql.catalog." + name;
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(prefix, "org.apache.iceberg.spark.SparkCatalog");
    settings.put(prefix + ".type", "jdbc");
    settings.put(prefix + ".uri", "jdbc:sqlite:" + temp.resolve("catalog.db"));
    settings.put(prefix + ".jdbc.schema-version", "V1");
    settings.put(prefix + ".warehouse", "s3://lake/warehouse");
    // every query loads the table from its metadata, as a new application would
    settings.put(prefix + ".cache-enabled", "false");
    settings.put(prefix + ".s3.endpoint", server.endpoint());
    settings.put(prefix + ".s3.path-style-access", "true");
    settings.put(prefix + ".s3.access-key-id", S3Server.ACCESS_KEY);
    settings.put(prefix + ".s3.secret-access-key", S3Server.SECRET_KEY);
    settings.put(prefix + ".client.region", "us-east-1");
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
  @Timeout(120)
  void aSecondReadOfAnIcebergTableAsksTheStoreNothing() throws Exception {
    Dataset<Row> rows = spark.range(0, 200_000).selectExpr("id", "concat('c', id % 7) AS category", "id * 3 AS amount").repartition(4);
    // written through S3FileIO alone, so that the first read through the cache loads the table from the store as a new application would
    spark.sql("CREATE NAMESPACE IF NOT EXISTS direct.db");
    spark.sql("CREATE TABLE direct.db.events (id BIGINT, category STRING, amount BIGINT) USING iceberg TBLPROPERTIES ('write.format.default'='parquet')");
    rows.writeTo("direct.db.events").append();
    // a JDBC catalog lists the tables of its own name: the cached catalog registers the same metadata file
    Table written = Spark3Util.loadIcebergTable(spark, "direct.db.events");
    Catalog lake = Spark3Util.loadIcebergCatalog(spark, "lake");
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.db");
    lake.registerTable(TableIdentifier.of("db", "events"), ((HasTableOperations) written).operations().current().metadataFileLocation());
    rows.createOrReplaceTempView("events_in_memory");
    List<Row> expected = spark.sql(String.format(QUERY, "events_in_memory")).collectAsList();

    server.reset();
    List<Row> direct = spark.sql(String.format(QUERY, "direct.db.events")).collectAsList();
    S3ServerControl.Counters directCounts = server.reset();
    List<Row> cold = spark.sql(String.format(QUERY, "lake.db.events")).collectAsList();
    S3ServerControl.Counters coldCounts = server.reset();
    List<Row> warm = spark.sql(String.format(QUERY, "lake.db.events")).collectAsList();
    S3ServerControl.Counters warmCounts = server.reset();
    System.out.printf("Iceberg on Spark: S3FileIO %d GETs, %d HEADs, %d bytes; through CachingFileIO(S3FileIO): cold %d GETs, %d HEADs,"
        + " %d bytes; warm %d GETs, %d HEADs%n", directCounts.gets(), directCounts.heads(), directCounts.bytes(), coldCounts.gets(),
        coldCounts.heads(), coldCounts.bytes(), warmCounts.gets(), warmCounts.heads());

    assertThat(direct).isEqualTo(expected);
    // the cold pass asks no more than S3FileIO alone: the metadata file and manifest list, opened without a length, are read
    // through S3FileIO's own streams; the manifest list's length, which Avro asks and S3FileIO sends a HEAD for, is where its stream ends
    assertThat(coldCounts.gets()).isLessThanOrEqualTo(directCounts.gets());
    assertThat(directCounts.heads()).isPositive();
    assertThat(coldCounts.heads()).isZero();
    assertThat(expected).hasSize(7);
    assertThat(cold).isEqualTo(expected);
    assertThat(warm).isEqualTo(expected);
    assertThat(coldCounts.gets()).isPositive();
    assertThat(warmCounts.gets()).isZero();
    assertThat(warmCounts.heads()).isZero();
  }
}
