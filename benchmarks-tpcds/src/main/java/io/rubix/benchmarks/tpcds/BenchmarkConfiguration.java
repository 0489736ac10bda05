package io.rubix.benchmarks.tpcds;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One way of reading the tables: a direct S3A input stream, S3A through RubiX or through Alluxio's
 * cache with an empty or a warm cache, or the same files on local disk (the physical limit a warm
 * cache is judged against).
 */
enum BenchmarkConfiguration {
  S3A_CLASSIC("s3a-classic", "direct S3A, classic input stream", Kind.DIRECT, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "classic")),
  S3A_ANALYTICS("s3a-analytics", "direct S3A, analytics input stream (Hadoop 3.4.3's default)", Kind.DIRECT, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "analytics")),
  // 32 blocks of 8 MB per stream instead of 4: at scale 1 the stream's LRU eviction deletes a block file a read is about to open
  // (NoSuchFileException on fs-cache-*.bin, the race seen in HADOOP-18184's review), which fails the query
  S3A_PREFETCH("s3a-prefetch", "direct S3A, prefetching input stream (up to 32 blocks cached per stream)", Kind.DIRECT, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "prefetch",
      "fs.s3a.prefetch.max.blocks.count", "32")),
  RUBIX_COLD("rubix-cold", "S3A through RubiX, cache emptied before every query", Kind.RUBIX, Map.of(
      "fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem",
      "rubix.cache.enabled", "true")),
  RUBIX_WARM("rubix-warm", "S3A through RubiX, cache warmed by one untimed run", Kind.RUBIX, Map.of(
      "fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem",
      "rubix.cache.enabled", "true")),
  RUBIX_WARM_TTL("rubix-warm-ttl", "as rubix-warm with rubix.cache.freshness=ttl: a file's status is trusted for 60 s instead of a HEAD"
      + " per open", Kind.RUBIX, Map.of(
      "fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem",
      "rubix.cache.enabled", "true",
      "rubix.cache.freshness", "ttl")),
  // Spark names every file it writes after its write job (part-<task>-<job UUID>-c<n>), so such a name is never written twice:
  // immutable is exactly as fresh as strict for them, and files named otherwise stay strict
  RUBIX_WARM_RULES("rubix-warm-rules", "as rubix-warm (strict) with a rule making Spark-written data files (part-*) immutable: no HEAD"
      + " per open for them, every other path strict", Kind.RUBIX, Map.of(
      "fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem",
      "rubix.cache.enabled", "true",
      "rubix.cache.rules", "spark_parts",
      "rubix.cache.rule.spark_parts.paths", "/**/part-*",
      "rubix.cache.rule.spark_parts.freshness", "immutable")),
  // Iceberg only: the FileIO of the JDBC catalog is S3FileIO (the AWS SDK, no Hadoop file system), bare or inside RubiX's CachingFileIO
  ICEBERG_S3FILEIO("iceberg-s3fileio", "Iceberg's S3FileIO, direct (no cache): the catalog's io-impl, a new catalog before every query"
      + " (as rubix-fileio-cold)", Kind.DIRECT, IcebergIo.S3_FILE_IO, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem")),
  RUBIX_FILEIO_COLD("rubix-fileio-cold", "Iceberg through RubiX's CachingFileIO over S3FileIO, a new catalog over an empty cache before every"
      + " query", Kind.RUBIX, IcebergIo.CACHING_FILE_IO, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "rubix.cache.enabled", "true")),
  RUBIX_FILEIO_WARM("rubix-fileio-warm", "Iceberg through RubiX's CachingFileIO over S3FileIO, cache warmed by one untimed run", Kind.RUBIX,
      IcebergIo.CACHING_FILE_IO, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "rubix.cache.enabled", "true")),
  ALLUXIO_COLD("alluxio-cold", "S3A (classic stream, random reads) through Alluxio 2.9.6 LocalCacheFileSystem, 1 MiB pages, cache emptied"
      + " before every query", Kind.ALLUXIO, alluxioSettings()),
  ALLUXIO_WARM("alluxio-warm", "S3A (classic stream, random reads) through Alluxio 2.9.6 LocalCacheFileSystem, 1 MiB pages, warmed by one"
      + " untimed run", Kind.ALLUXIO, alluxioSettings()),
  LOCAL_FILE("local-file", "the same files copied to local disk and read through file:// with Hadoop's raw local file system, which"
      + " reads no checksum files (page cache warm after one untimed run): the physical limit", Kind.LOCAL, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "classic",
      "fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")),
  LOCAL_FILE_CHECKSUMMED("local-file-checksummed", "as local-file, read through Hadoop's default (checksummed) LocalFileSystem, which"
      + " verifies the .crc files the copy wrote: what those checksums cost; not in the default run", Kind.LOCAL, Map.of(
      "fs.s3a.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem",
      "fs.s3a.input.stream.type", "classic"));

  private enum Kind { DIRECT, RUBIX, ALLUXIO, LOCAL }

  /** How an Iceberg table's files are read: the catalog's {@code io-impl}. */
  enum IcebergIo {
    /** HadoopFileIO (the JDBC catalog's default): through the Hadoop file system of {@code fs.s3a.impl}, so S3A, RubiX or Alluxio. */
    HADOOP_FILE_IO,
    /** Iceberg's S3FileIO. */
    S3_FILE_IO,
    /** RubiX's CachingFileIO over S3FileIO. */
    CACHING_FILE_IO
  }

  private static Map<String, String> alluxioSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("fs.s3a.impl", "io.rubix.benchmarks.tpcds.alluxio.AlluxioS3AFileSystem");
    settings.put("fs.s3a.input.stream.type", "classic");
    settings.put("fs.s3a.experimental.input.fadvise", "random");
    settings.put("alluxio.user.client.cache.enabled", "true");
    settings.put("alluxio.user.client.cache.size", "4GB");
    settings.put("alluxio.user.client.cache.page.size", "1MB");
    // a new cache manager (alluxio-cold makes one per query) is usable at once, not after a background restore
    settings.put("alluxio.user.client.cache.async.restore.enabled", "false");
    return Map.copyOf(settings);
  }

  /** Whether the timed runs follow one untimed run of every query that fills the cache (or the page cache). */
  boolean warmedUp() {
    return this == RUBIX_WARM || this == RUBIX_WARM_TTL || this == RUBIX_WARM_RULES || this == RUBIX_FILEIO_WARM || this == ALLUXIO_WARM
        || kind == Kind.LOCAL;
  }

  /** Whether a run of {@code format} without --configs measures it. */
  boolean inDefaultRun(TableFormat format) {
    if (notFor(format) != null) {
      return false;
    }
    return switch (format) {
      case ORC, PARQUET -> this != LOCAL_FILE_CHECKSUMMED;
      // the FileIO routes, and HadoopFileIO over direct S3A and over RubiX
      case ICEBERG -> this == ICEBERG_S3FILEIO || this == RUBIX_FILEIO_COLD || this == RUBIX_FILEIO_WARM || this == S3A_CLASSIC
          || this == RUBIX_COLD || this == RUBIX_WARM || this == RUBIX_WARM_RULES;
      case DELTA -> this == S3A_CLASSIC || this == S3A_ANALYTICS || this == RUBIX_COLD || this == RUBIX_WARM || this == RUBIX_WARM_RULES
          || this == LOCAL_FILE;
    };
  }

  /** Why this configuration cannot read {@code format}'s tables, or null when it can. */
  String notFor(TableFormat format) {
    if (io != IcebergIo.HADOOP_FILE_IO && format != TableFormat.ICEBERG) {
      return label + " reads through an Iceberg FileIO, and --format " + format.key() + " has no Iceberg catalog: use it with --format iceberg";
    }
    if (kind == Kind.LOCAL && format == TableFormat.ICEBERG) {
      return label + " does not apply to --format iceberg: an Iceberg table's metadata names its files by absolute s3a:// paths, so a copy"
          + " on local disk is another table (with rewritten metadata), not the same files; compare with --format parquet's local-file,"
          + " the same data files' rows as Parquet on local disk";
    }
    return null;
  }

  /**
   * Whether every timed query reads the Iceberg tables through a new catalog, which loads each table's metadata again:
   * rubix-fileio-cold's way to an empty cache (see ConfigurationRun), and so also the S3FileIO it is measured against.
   */
  boolean newIcebergCatalogPerQuery() {
    return this == ICEBERG_S3FILEIO || this == RUBIX_FILEIO_COLD;
  }

  /** Whether the cache is emptied before every timed query. */
  boolean emptiedPerQuery() {
    return this == RUBIX_COLD || this == RUBIX_FILEIO_COLD || this == ALLUXIO_COLD;
  }

  /** How Iceberg tables are read in this configuration (HadoopFileIO unless it is one of the FileIO configurations). */
  IcebergIo icebergIo() {
    return io;
  }

  /** A direct S3A stream (no cache); these start each query with new file system instances. */
  boolean direct() {
    return kind == Kind.DIRECT;
  }

  boolean rubix() {
    return kind == Kind.RUBIX;
  }

  boolean alluxio() {
    return kind == Kind.ALLUXIO;
  }

  /** Reads local copies of the tables instead of the bucket. */
  boolean local() {
    return kind == Kind.LOCAL;
  }

  private final String label;
  private final String description;
  private final Kind kind;
  private final IcebergIo io;
  private final Map<String, String> hadoopSettings;

  BenchmarkConfiguration(String label, String description, Kind kind, Map<String, String> hadoopSettings) {
    this(label, description, kind, IcebergIo.HADOOP_FILE_IO, hadoopSettings);
  }

  BenchmarkConfiguration(String label, String description, Kind kind, IcebergIo io, Map<String, String> hadoopSettings) {
    this.label = label;
    this.description = description;
    this.kind = kind;
    this.io = io;
    this.hadoopSettings = hadoopSettings;
  }

  String label() {
    return label;
  }

  String description() {
    return description;
  }

  Map<String, String> hadoopSettings() {
    return hadoopSettings;
  }

  /**
   * The Hadoop settings for reading {@code format}'s tables in the bucket {@code bucketRoot} ({@code s3a://bucket/}): rubix-warm-rules
   * takes docs/operations.md's rule set of the format. Delta: {@code _delta_log/_last_checkpoint} (overwritten in place at every
   * checkpoint) strict, everything else immutable. Iceberg: {@code metadata/version-hint.text} (a Hadoop catalog's, overwritten at
   * every commit; the JDBC catalog here writes none) strict, everything else immutable.
   */
  Map<String, String> hadoopSettings(TableFormat format, String bucketRoot) {
    if (this != RUBIX_WARM_RULES || !format.openTable()) {
      return hadoopSettings;
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    settings.put("rubix.cache.enabled", "true");
    if (format == TableFormat.DELTA) {
      settings.put("rubix.cache.rules", "delta_log,delta");
      settings.put("rubix.cache.rule.delta_log.paths", bucketRoot + "**/_delta_log/_last_checkpoint");
      settings.put("rubix.cache.rule.delta.paths", bucketRoot);
      settings.put("rubix.cache.rule.delta.freshness", "immutable");
    } else {
      settings.put("rubix.cache.rules", "iceberg_hint,iceberg");
      settings.put("rubix.cache.rule.iceberg_hint.paths", bucketRoot + "**/metadata/version-hint.text");
      settings.put("rubix.cache.rule.iceberg.paths", bucketRoot);
      settings.put("rubix.cache.rule.iceberg.freshness", "immutable");
    }
    return Map.copyOf(settings);
  }

  /** What it is for {@code format}: rubix-warm-rules names the format's rule set. */
  String description(TableFormat format) {
    if (this == RUBIX_WARM_RULES && format == TableFormat.DELTA) {
      return "as rubix-warm (strict) with docs/operations.md's Delta rule set: _delta_log/_last_checkpoint strict, every other file immutable";
    }
    if (this == RUBIX_WARM_RULES && format == TableFormat.ICEBERG) {
      return "HadoopFileIO over S3A through RubiX with docs/operations.md's Iceberg rule set: metadata/version-hint.text strict (this"
          + " catalog writes none), every other file immutable";
    }
    if (format == TableFormat.ICEBERG && io == IcebergIo.HADOOP_FILE_IO) {
      return "HadoopFileIO over " + description;
    }
    return description;
  }

  static BenchmarkConfiguration named(String label) {
    return Arrays.stream(values()).filter(c -> c.label.equals(label)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown configuration " + label + "; known: "
            + Arrays.stream(values()).map(BenchmarkConfiguration::label).toList()));
  }
}
