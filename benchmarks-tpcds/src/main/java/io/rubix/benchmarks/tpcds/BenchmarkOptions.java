package io.rubix.benchmarks.tpcds;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Command-line options of {@link TpcdsBenchmark}.
 *
 * @param scale TPC-DS scale factor (1 = 1 GB of raw data; 0.01 is the smallest useful)
 * @param format the file format the tables are written and read in
 * @param latencyMs latency the embedded S3 server adds before the first byte of every GET and before every HEAD and LIST answer
 * @param bandwidth bytes per second per connection of the embedded S3 server (0: unlimited)
 * @param configurations the configurations to run (each in its own JVM, in an order shuffled with {@code seed})
 * @param queries TPC-DS query names
 * @param iterations timed iterations per query and configuration (the median and the range are reported)
 * @param seed the seed of the shuffle of the configurations' order, or null for a random one (printed)
 * @param endpoint an external S3 endpoint, or null for the embedded S3 server
 * @param accessKey credentials for the external endpoint
 * @param secretKey credentials for the external endpoint
 * @param bucket the bucket holding the data
 * @param dataDir where the embedded S3 server keeps its objects (data is generated once and reused)
 * @param resultsDir where the tables and charts go
 * @param cacheDir the RubiX cache directory
 */
record BenchmarkOptions(double scale, TableFormat format, long latencyMs, long bandwidth, List<BenchmarkConfiguration> configurations, List<String> queries,
    int iterations, Long seed, String endpoint, String accessKey, String secretKey, String bucket, Path dataDir, Path resultsDir, Path cacheDir) {

  /** A fixed subset of TPC-DS: scans, joins of the store, catalog and web channels, no customer_demographics (1.9M rows at any scale). */
  static final List<String> DEFAULT_QUERIES = List.of("q3", "q12", "q15", "q19", "q20", "q34", "q36", "q42", "q43", "q46", "q52",
      "q53", "q55", "q59", "q63", "q65", "q68", "q73", "q79", "q89", "q96", "q98");
  static final List<String> SMOKE_QUERIES = List.of("q3", "q55");

  BenchmarkOptions {
    requireNonNull(format, "format is null");
    requireNonNull(configurations, "configurations is null");
    requireNonNull(queries, "queries is null");
    requireNonNull(bucket, "bucket is null");
    requireNonNull(dataDir, "dataDir is null");
    requireNonNull(resultsDir, "resultsDir is null");
    requireNonNull(cacheDir, "cacheDir is null");
    if (scale <= 0) {
      throw new IllegalArgumentException("--scale must be positive: " + scale);
    }
    if (iterations < 1) {
      throw new IllegalArgumentException("--iterations must be at least 1: " + iterations);
    }
    if (configurations.isEmpty() || queries.isEmpty()) {
      throw new IllegalArgumentException("at least one configuration and one query");
    }
  }

  static final String USAGE = """
      TpcdsBenchmark [options]
        --scale F             TPC-DS scale factor (default 0.1; --smoke: 0.01)
        --format F            orc, parquet, iceberg or delta: the same data, generated once per format and scale (default orc);
                              iceberg and delta tables have Parquet data files, iceberg's in a JDBC (sqlite) catalog
        --latency-ms N        latency of the embedded S3 server before the first byte of a GET and before a HEAD or LIST answer (default 30)
        --bandwidth B         bandwidth per connection of the embedded S3 server, e.g. 100m (default 100m = 100 MB/s; 0 = unlimited)
        --configs A,B,...     from s3a-classic, s3a-analytics, s3a-prefetch, rubix-cold, rubix-warm, rubix-warm-ttl, rubix-warm-rules, alluxio-cold, alluxio-warm, local-file,
                              local-file-checksummed (not in the default run), and for --format iceberg only iceberg-s3fileio, rubix-fileio-cold,
                              rubix-fileio-warm (local-file does not apply to iceberg)
                              (default orc, parquet: all of them but local-file-checksummed; iceberg: iceberg-s3fileio, rubix-fileio-cold,
                              rubix-fileio-warm, s3a-classic, rubix-cold, rubix-warm, rubix-warm-rules; delta: s3a-classic, s3a-analytics,
                              rubix-cold, rubix-warm, rubix-warm-rules, local-file); each runs in its own JVM, in a shuffled order
        --seed N              seed of that shuffle (default: a random one, printed)
        --queries q3,q12,...  TPC-DS queries (default: 22 queries, see docs/spark.md)
        --iterations N        timed runs of every query per configuration; median and min-max are reported (default 3; --smoke: 1)
        --endpoint URL        an external S3 endpoint instead of the embedded server (with --access-key, --secret-key)
        --access-key K --secret-key S --bucket B (default bucket rubix-tpcds)
        --data-dir DIR        objects of the embedded S3 server (default benchmarks-tpcds/data)
        --results DIR         output directory (default benchmarks-tpcds/results)
        --cache-dir DIR       RubiX cache directory (default benchmarks-tpcds/target/cache)
        --smoke               smallest scale, two queries, one iteration
      """;

  static BenchmarkOptions parse(String... args) {
    boolean smoke = Arrays.asList(args).contains("--smoke");
    double scale = smoke ? 0.01 : 0.1;
    TableFormat format = TableFormat.ORC;
    long latencyMs = 30;
    long bandwidth = 100_000_000L;
    List<BenchmarkConfiguration> configurations = null;
    List<String> queries = smoke ? SMOKE_QUERIES : DEFAULT_QUERIES;
    int iterations = smoke ? 1 : 3;
    Long seed = null;
    String endpoint = null;
    String accessKey = null;
    String secretKey = null;
    String bucket = "rubix-tpcds";
    Path base = Path.of("benchmarks-tpcds");
    if (!base.toFile().isDirectory()) {
      // run from the module's own directory: an absolute path, since the S3 server refuses a data directory named through "."
      base = Path.of("").toAbsolutePath();
    }
    Path dataDir = base.resolve("data");
    Path resultsDir = base.resolve("results");
    Path cacheDir = base.resolve("target").resolve("cache");
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--smoke")) {
        continue;
      }
      if (arg.equals("--help") || arg.equals("-h")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value for " + arg + "\n" + USAGE);
      }
      String value = args[++i];
      switch (arg) {
        case "--scale" -> scale = Double.parseDouble(value);
        case "--format" -> format = TableFormat.named(value);
        case "--latency-ms" -> latencyMs = Long.parseLong(value);
        case "--bandwidth" -> bandwidth = parseBytes(value);
        case "--configs" -> configurations = Arrays.stream(value.split(",")).map(String::trim).map(BenchmarkConfiguration::named).toList();
        case "--queries" -> queries = Arrays.stream(value.split(",")).map(String::trim).toList();
        case "--iterations" -> iterations = Integer.parseInt(value);
        case "--seed" -> seed = Long.parseLong(value);
        case "--endpoint" -> endpoint = value;
        case "--access-key" -> accessKey = value;
        case "--secret-key" -> secretKey = value;
        case "--bucket" -> bucket = value;
        case "--data-dir" -> dataDir = Path.of(value);
        case "--results" -> resultsDir = Path.of(value);
        case "--cache-dir" -> cacheDir = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
      }
    }
    if (endpoint != null && (accessKey == null || secretKey == null)) {
      throw new IllegalArgumentException("--endpoint needs --access-key and --secret-key");
    }
    TableFormat tableFormat = format;
    if (configurations == null) {
      configurations = Arrays.stream(BenchmarkConfiguration.values()).filter(c -> c.inDefaultRun(tableFormat)).toList();
    }
    for (BenchmarkConfiguration configuration : configurations) {
      String reason = configuration.notFor(format);
      if (reason != null) {
        throw new IllegalArgumentException(reason);
      }
    }
    if (configurations.stream().distinct().count() != configurations.size()) {
      throw new IllegalArgumentException("--configs names a configuration twice: " + configurations);
    }
    return new BenchmarkOptions(scale, format, latencyMs, bandwidth, configurations, queries, iterations, seed, endpoint, accessKey, secretKey, bucket,
        dataDir.toAbsolutePath(), resultsDir.toAbsolutePath(), cacheDir.toAbsolutePath());
  }

  /** Bytes with an optional k/m/g suffix in powers of 1000 (bandwidths are decimal: 100m = 100 MB/s). */
  static long parseBytes(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT).replace("b/s", "").replace("/s", "");
    long unit = switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
      case 'k' -> 1_000L;
      case 'm' -> 1_000_000L;
      case 'g' -> 1_000_000_000L;
      default -> 1L;
    };
    if (unit != 1) {
      v = v.substring(0, v.length() - 1);
    }
    return Math.round(Double.parseDouble(v) * unit);
  }

  /** The scale as it appears in object keys: {@code sf0_1}. */
  String scaleKey() {
    String s = Double.toString(scale);
    if (s.endsWith(".0")) {
      s = s.substring(0, s.length() - 2);
    }
    return "sf" + s.replace('.', '_');
  }
}
