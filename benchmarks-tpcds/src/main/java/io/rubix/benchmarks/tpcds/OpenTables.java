package io.rubix.benchmarks.tpcds;

import io.rubix.benchmarks.tpcds.BenchmarkConfiguration.IcebergIo;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The Spark settings of the open table formats: Delta Lake's session extension and catalog, and the
 * Iceberg catalog the TPC-DS tables are registered in.
 *
 * <p>Iceberg's catalog is a JDBC catalog on a local sqlite file whose tables live in the bucket, not a
 * Hadoop catalog: a Hadoop catalog finds a table's current metadata through
 * {@code metadata/version-hint.text}, which every commit overwrites in place, so every table load asks
 * the store for it (a HEAD under strict freshness) and probes for the next metadata version (a HEAD and
 * a LIST per codec name, of a key that is not there); no cache can answer those. A JDBC catalog (as
 * Hive, Glue and REST catalogs) keeps the metadata file's name in its database, and every file in the
 * bucket is then written once under a new name: that is what lets a warm read ask the store nothing.
 */
final class OpenTables {
  /** The Iceberg catalog's name in Spark. */
  static final String ICEBERG_CATALOG = "tpcds_iceberg";
  /** The Iceberg catalog's namespace of the TPC-DS tables (one catalog database per scale). */
  static final String ICEBERG_NAMESPACE = "tpcds";

  private OpenTables() {}

  /** {@code tpcds_iceberg.tpcds.store_sales}, in catalog {@code catalog}. */
  static String icebergTable(String catalog, String table) {
    return catalog + "." + ICEBERG_NAMESPACE + "." + table;
  }

  /** Delta Lake's SQL extension and session catalog (what delta-spark's documentation asks for). */
  static Map<String, String> deltaSession() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension");
    settings.put("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog");
    // the log's state in 2 partitions (default 50): small tables, a small machine
    settings.put("spark.databricks.delta.snapshotPartitions", "2");
    return settings;
  }

  /**
   * The Spark settings of Iceberg catalog {@code name}: a JDBC catalog on {@code uri} ({@code jdbc:sqlite:...}) whose FileIO is
   * {@code io}. S3FileIO gets the store's endpoint and credentials from the S3A settings {@code s3a}; HadoopFileIO reads through
   * the session's Hadoop configuration ({@code fs.s3a.impl}: S3A or RubiX). {@code cacheDir} is CachingFileIO's cache, or null.
   */
  static Map<String, String> icebergCatalog(String name, String uri, String warehouse, IcebergIo io, Map<String, String> s3a, String cacheDir) {
    String prefix = "spark.sql.catalog." + name;
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(prefix, "org.apache.iceberg.spark.SparkCatalog");
    settings.put(prefix + ".type", "jdbc");
    settings.put(prefix + ".uri", uri);
    settings.put(prefix + ".jdbc.schema-version", "V1");
    settings.put(prefix + ".warehouse", warehouse);
    // a table is loaded once per session (its metadata file, manifest list) and kept, as a long-running application keeps it
    settings.put(prefix + ".cache-enabled", "true");
    settings.put(prefix + ".cache.expiration-interval-ms", "-1");
    if (io != IcebergIo.HADOOP_FILE_IO) {
      if (io == IcebergIo.CACHING_FILE_IO) {
        settings.put(prefix + ".io-impl", "io.rubix.iceberg.CachingFileIO");
        settings.put(prefix + ".rubix.iceberg.delegate-io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        if (cacheDir != null) {
          settings.put(prefix + ".rubix.cache.dirs", cacheDir);
        }
      } else {
        settings.put(prefix + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
      }
      settings.put(prefix + ".s3.endpoint", endpointUrl(s3a));
      settings.put(prefix + ".s3.path-style-access", s3a.getOrDefault("fs.s3a.path.style.access", "false"));
      settings.put(prefix + ".s3.access-key-id", s3a.get("fs.s3a.access.key"));
      settings.put(prefix + ".s3.secret-access-key", s3a.get("fs.s3a.secret.key"));
      settings.put(prefix + ".client.region", s3a.getOrDefault("fs.s3a.endpoint.region", "us-east-1"));
    }
    return settings;
  }

  /** S3A's endpoint as a URL: S3A takes a host name and a separate SSL switch, the AWS SDK a URL. */
  private static String endpointUrl(Map<String, String> s3a) {
    String endpoint = s3a.get("fs.s3a.endpoint");
    if (endpoint == null) {
      throw new IllegalArgumentException("no fs.s3a.endpoint for S3FileIO");
    }
    if (endpoint.toLowerCase(Locale.ROOT).startsWith("http://") || endpoint.toLowerCase(Locale.ROOT).startsWith("https://")) {
      return endpoint;
    }
    return (Boolean.parseBoolean(s3a.getOrDefault("fs.s3a.connection.ssl.enabled", "true")) ? "https://" : "http://") + endpoint;
  }

  /** Whether {@code key} ({@code bucket/key}) is a table's data file: ORC or Parquet, not a Delta checkpoint or Iceberg metadata. */
  static boolean dataFile(String key) {
    return (key.endsWith(".parquet") || key.endsWith(".orc")) && !key.contains("/_delta_log/") && !key.contains("/metadata/");
  }

  /**
   * Whether {@code key} is what a reader asks for to learn a table's current version, which no cache can answer: Delta's
   * {@code _delta_log} directory (probed with a HEAD and listed before every query's snapshot update) and its
   * {@code _last_checkpoint} (overwritten in place at every checkpoint: strict), a Hadoop catalog's {@code metadata/version-hint.text}.
   */
  static boolean logPointer(String key) {
    return key.endsWith("/_delta_log") || key.endsWith("/_delta_log/_last_checkpoint") || key.endsWith("/metadata/version-hint.text");
  }
}
