package io.rubix.benchmarks.tpcds;

import java.util.Arrays;
import java.util.Map;

/**
 * One way of reading the tables: a direct S3A input stream, S3A through RubiX with an empty or a warm
 * cache, through Alluxio's cache, or the same files on local disk (the physical limit a warm cache is
 * judged against).
 */
enum BenchmarkConfiguration {
  S3A_CLASSIC("s3a-classic", "direct S3A, classic input stream", false, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "classic")),
  S3A_ANALYTICS("s3a-analytics", "direct S3A, analytics input stream (Hadoop 3.4.3's default)", false, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "analytics")),
  S3A_PREFETCH("s3a-prefetch", "direct S3A, prefetching input stream", false, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "prefetch")),
  RUBIX_COLD("rubix-cold", "S3A through RubiX, cache emptied before every query", true, Map.of(
      "fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem",
      "rubix.cache.enabled", "true")),
  RUBIX_WARM("rubix-warm", "S3A through RubiX, cache warmed by one untimed run", true, Map.of(
      "fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem",
      "rubix.cache.enabled", "true")),
  ALLUXIO_WARM("alluxio-warm", "S3A (classic stream, random reads) through Alluxio 2.9.6 LocalCacheFileSystem, 1 MiB pages, warmed by one untimed run",
      false, Map.of(
      "fs.s3a.impl", "io.rubix.benchmarks.tpcds.alluxio.AlluxioS3AFileSystem",
      "fs.s3a.input.stream.type", "classic",
      "fs.s3a.experimental.input.fadvise", "random",
      "alluxio.user.client.cache.enabled", "true",
      "alluxio.user.client.cache.size", "4GB",
      "alluxio.user.client.cache.page.size", "1MB")),
  LOCAL_FILE("local-file", "the same ORC files copied to local disk and read through file:// (page cache warm after one untimed run): the physical limit",
      false, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "classic"));

  /** Whether the timed runs follow one untimed run of every query. */
  boolean warmedUp() {
    return this == RUBIX_WARM || this == ALLUXIO_WARM || this == LOCAL_FILE;
  }

  /** A direct S3A stream (no cache); these start each query with new file system instances. */
  boolean direct() {
    return !rubix && this != ALLUXIO_WARM && this != LOCAL_FILE;
  }

  /** Reads local copies of the tables instead of the bucket. */
  boolean local() {
    return this == LOCAL_FILE;
  }

  private final String label;
  private final String description;
  private final boolean rubix;
  private final Map<String, String> hadoopSettings;

  BenchmarkConfiguration(String label, String description, boolean rubix, Map<String, String> hadoopSettings) {
    this.label = label;
    this.description = description;
    this.rubix = rubix;
    this.hadoopSettings = hadoopSettings;
  }

  String label() {
    return label;
  }

  String description() {
    return description;
  }

  boolean rubix() {
    return rubix;
  }

  Map<String, String> hadoopSettings() {
    return hadoopSettings;
  }

  static BenchmarkConfiguration named(String label) {
    return Arrays.stream(values()).filter(c -> c.label.equals(label)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown configuration " + label + "; known: "
            + Arrays.stream(values()).map(BenchmarkConfiguration::label).toList()));
  }
}
