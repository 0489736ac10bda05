package io.rubix.benchmarks.tpcds;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * What one configuration's JVM runs, handed to it on its stdin (it can hold credentials, so it is
 * never written to a file).
 *
 * @param configuration how the tables are read
 * @param queries TPC-DS query names, run in this order in every pass
 * @param iterations timed passes over the queries
 * @param bucketRoot {@code s3a://bucket/}
 * @param format the file format of the tables
 * @param tables table name to the location of its files (in the bucket, or on local disk for local-file)
 * @param s3a Hadoop settings that reach the store
 * @param control the S3 server's control endpoint (counters), or null for an external store
 * @param cacheDir the configuration's own cache directory, emptied when the run starts
 * @param output where the run writes its {@link RunResult}
 * @param icebergCatalog the Iceberg catalog's JDBC URI ({@code jdbc:sqlite:...}), or null unless the format is Iceberg
 * @param icebergWarehouse the Iceberg catalog's warehouse, or null unless the format is Iceberg
 */
record RunSpec(BenchmarkConfiguration configuration, List<String> queries, int iterations, String bucketRoot, TableFormat format,
    Map<String, String> tables,
    Map<String, String> s3a, String control, String cacheDir, String output, String icebergCatalog, String icebergWarehouse) {
  /** A spec for a format other than Iceberg. */
  RunSpec(BenchmarkConfiguration configuration, List<String> queries, int iterations, String bucketRoot, TableFormat format,
      Map<String, String> tables, Map<String, String> s3a, String control, String cacheDir, String output) {
    this(configuration, queries, iterations, bucketRoot, format, tables, s3a, control, cacheDir, output, null, null);
  }

  RunSpec {
    requireNonNull(configuration, "configuration is null");
    queries = List.copyOf(queries);
    tables = Map.copyOf(tables);
    s3a = Map.copyOf(s3a);
    requireNonNull(bucketRoot, "bucketRoot is null");
    requireNonNull(format, "format is null");
    requireNonNull(cacheDir, "cacheDir is null");
    requireNonNull(output, "output is null");
    if (format == TableFormat.ICEBERG && (icebergCatalog == null || icebergWarehouse == null)) {
      throw new IllegalArgumentException("an Iceberg run needs the catalog's URI and warehouse");
    }
    if (queries.isEmpty() || iterations < 1) {
      throw new IllegalArgumentException("no queries or no iterations: " + queries + ", " + iterations);
    }
  }
}
