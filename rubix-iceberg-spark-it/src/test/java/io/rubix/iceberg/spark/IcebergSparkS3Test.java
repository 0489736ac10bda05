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
import java.util.List;
import org.apache.iceberg.aws.s3.S3FileIO;
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
 * FileIO and read twice answers as the same query over the rows in memory, and the second read asks
 * the store nothing (0 GETs, 0 HEADs).
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
    spark = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-iceberg")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config(CATALOG, "org.apache.iceberg.spark.SparkCatalog")
        .config(CATALOG + ".type", "jdbc")
        .config(CATALOG + ".uri", "jdbc:sqlite:" + temp.resolve("catalog.db"))
        .config(CATALOG + ".jdbc.schema-version", "V1")
        .config(CATALOG + ".warehouse", "s3://lake/warehouse")
        .config(CATALOG + ".io-impl", CachingFileIO.class.getName())
        .config(CATALOG + "." + IcebergKeys.DELEGATE_IO_IMPL.name(), S3FileIO.class.getName())
        .config(CATALOG + ".s3.endpoint", server.endpoint())
        .config(CATALOG + ".s3.path-style-access", "true")
        .config(CATALOG + ".s3.access-key-id", S3Server.ACCESS_KEY)
        .config(CATALOG + ".s3.secret-access-key", S3Server.SECRET_KEY)
        .config(CATALOG + ".client.region", "us-east-1")
        .config(CATALOG + ".rubix.cache.dirs", temp.resolve("cache").toString())
        .config(CATALOG + ".rubix.cache.jmx.enabled", "false")
        .getOrCreate();
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
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.db");
    spark.sql("CREATE TABLE lake.db.events (id BIGINT, category STRING, amount BIGINT) USING iceberg TBLPROPERTIES ('write.format.default'='parquet')");
    rows.writeTo("lake.db.events").append();
    rows.createOrReplaceTempView("events_in_memory");
    List<Row> expected = spark.sql(String.format(QUERY, "events_in_memory")).collectAsList();

    server.reset();
    List<Row> cold = spark.sql(String.format(QUERY, "lake.db.events")).collectAsList();
    S3ServerControl.Counters coldCounts = server.reset();
    List<Row> warm = spark.sql(String.format(QUERY, "lake.db.events")).collectAsList();
    S3ServerControl.Counters warmCounts = server.reset();
    System.out.printf("Iceberg on Spark through CachingFileIO(S3FileIO): cold %d GETs, %d HEADs, %d bytes; warm %d GETs, %d HEADs%n",
        coldCounts.gets(), coldCounts.heads(), coldCounts.bytes(), warmCounts.gets(), warmCounts.heads());

    assertThat(expected).hasSize(7);
    assertThat(cold).isEqualTo(expected);
    assertThat(warm).isEqualTo(expected);
    assertThat(coldCounts.gets()).isPositive();
    assertThat(warmCounts.gets()).isZero();
    assertThat(warmCounts.heads()).isZero();
  }
}
