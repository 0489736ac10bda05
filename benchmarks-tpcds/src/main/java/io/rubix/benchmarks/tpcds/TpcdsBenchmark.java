package io.rubix.benchmarks.tpcds;

import io.rubix.testing.S3ServerMain;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * TPC-DS on Spark 4 (local mode) over ORC or Parquet tables in S3: direct S3A input streams against S3A through
 * RubiX and through Alluxio with an empty and with a warm cache, and against the same files on local
 * disk. Data is generated once per scale and reused. By default the store is an S3 server on loopback
 * (its own JVM) that adds a latency before the first byte of every GET and before every HEAD and LIST
 * answer and limits each connection's bandwidth, like a cloud object store seen from a nearby VM.
 *
 * <p>This JVM prepares the data, starts the S3 server and writes the report; each configuration runs
 * in a fresh JVM of its own ({@link ConfigurationRun}), one after another in an order shuffled with a
 * printed seed, so no configuration profits from another's JIT, heap, page cache position or file
 * system state. Every answer is compared with the reference configuration's (the first direct S3A
 * one).
 */
public final class TpcdsBenchmark {
  private final BenchmarkOptions options;
  private final PrintStream out;

  TpcdsBenchmark(BenchmarkOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    BenchmarkOptions options;
    try {
      options = BenchmarkOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Outcome outcome = new TpcdsBenchmark(options, System.out).run();
    System.exit(outcome.answersMatch() && outcome.failedChecks().isEmpty() ? 0 : 1);
  }

  /** What a run produced: the configurations in the order they ran, the seed of that order, and the report's numbers. */
  record Outcome(Path resultsDir, boolean answersMatch, long seed, List<BenchmarkConfiguration> order, List<QueryResult> results,
      Map<String, Spread> totals, Map<BenchmarkConfiguration, Long> pids, List<String> failedChecks) {}

  Outcome run() throws IOException {
    List<String> queries = options.queries();
    Set<String> tables = new TreeSet<>();
    for (String query : queries) {
      tables.addAll(TpcdsTables.tablesOf(TpcdsTables.query(query)));
    }
    String store = options.endpoint() == null
        ? String.format(Locale.ROOT, "embedded S3 server on loopback: latency %d ms before the first byte of every GET and before every HEAD and"
            + " LIST answer, bandwidth %s per connection",
            options.latencyMs(), options.bandwidth() == 0 ? "unlimited" : String.format(Locale.ROOT, "%.0f MB/s", options.bandwidth() / 1e6))
        : "external S3 endpoint " + options.endpoint();
    long seed = options.seed() != null ? options.seed() : ThreadLocalRandom.current().nextLong();
    List<BenchmarkConfiguration> order = new ArrayList<>(options.configurations());
    Collections.shuffle(order, new Random(seed));
    out.printf(Locale.ROOT, "TPC-DS %s, scale %s, %d queries %s, %d iteration(s), tables %s%n", options.format().title(),
        options.scale(), queries.size(), queries, options.iterations(), tables);
    out.println("Store: " + store);
    options.configurations().forEach(c -> out.println("  " + c.label() + ": " + c.description(options.format())));
    out.printf(Locale.ROOT, "Each configuration in its own JVM, in this order (--seed %d): %s%n", seed,
        String.join(", ", order.stream().map(BenchmarkConfiguration::label).toList()));

    Path dir = options.resultsDir().resolve(options.scaleKey() + "-" + options.format().key() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    S3ServerProcess server = options.endpoint() == null ? startServer() : null;
    try {
      Map<String, String> s3a = server != null ? server.s3aSettings() : externalSettings();
      if (server != null) {
        server.createBucket(options.bucket());
        server.control().settings(0, 0, 0);
      }
      Configuration conf = new Configuration();
      s3a.forEach(conf::set);
      BenchmarkConfiguration.S3A_CLASSIC.hadoopSettings().forEach(conf::set);
      generate(conf, s3a, tables);
      if (options.configurations().stream().anyMatch(BenchmarkConfiguration::local)) {
        copyToLocalDisk(conf, tables);
      }
      FileSystem.closeAll();
      if (server != null) {
        server.control().settings(options.latencyMs(), options.latencyMs(), options.bandwidth());
      }

      List<QueryResult> results = new ArrayList<>();
      Map<BenchmarkConfiguration, Long> pids = new LinkedHashMap<>();
      String sparkVersion = "?";
      for (BenchmarkConfiguration configuration : order) {
        Map<String, String> locations = new LinkedHashMap<>();
        tables.forEach(table -> locations.put(table, configuration.local() ? localPath(table) : path(table)));
        Path cache = options.cacheDir().resolve(configuration.label());
        RunSpec spec = new RunSpec(configuration, queries, options.iterations(), root(), options.format(), locations, s3a,
            server == null ? null : server.control().uri().toString(), cache.toString(), dir.resolve(configuration.label() + ".json").toString(),
            options.format() == TableFormat.ICEBERG ? icebergCatalogUri() : null, options.format() == TableFormat.ICEBERG ? warehouse() : null);
        long start = System.nanoTime();
        RunResult run = ChildJvm.run(spec, dir.resolve(configuration.label() + ".log"), out);
        out.printf(Locale.ROOT, "[%s] its JVM ran for %d s%n", configuration.label(), (System.nanoTime() - start) / 1_000_000_000);
        deleteRecursively(cache);
        results.addAll(run.results());
        pids.put(configuration, run.pid());
        sparkVersion = run.sparkVersion();
      }

      BenchmarkConfiguration reference = options.configurations().stream().filter(BenchmarkConfiguration::direct).findFirst()
          .orElse(options.configurations().get(0));
      BenchmarkConfiguration baseline = options.configurations().contains(BenchmarkConfiguration.S3A_ANALYTICS)
          ? BenchmarkConfiguration.S3A_ANALYTICS : reference;
      String header = "# TPC-DS " + options.format().title() + " on Spark " + sparkVersion + ", scale " + options.scale() + "\n\n"
          + "Store: " + store + ".\n"
          + "Milliseconds: median (min–max) of " + options.iterations() + " iteration(s); a total is one pass over all queries. Speed-ups"
          + " compare medians with " + baseline.label() + ".\n"
          + "Spark local[2], " + Runtime.getRuntime().availableProcessors() + " cores; each configuration in a fresh JVM, run in this order"
          + " (--seed " + seed + "): " + String.join(", ", order.stream().map(BenchmarkConfiguration::label).toList())
          + "; answers compared with " + reference.label() + ".\n"
          + (ChildJvm.settings().isEmpty() ? "" : "Settings of every configuration's JVM: " + String.join(" ", ChildJvm.settings()) + ".\n");
      Report report = new Report(options, reference, baseline, results);
      report.write(dir, header);
      out.println();
      out.println(report.markdown(header));
      Map<String, Spread> totals = new LinkedHashMap<>();
      options.configurations().forEach(c -> totals.put(c.label(), report.total(c)));
      goals(report, baseline);
      List<String> failed = Checks.check(options, report, out);
      out.println("Results: " + dir);
      out.println(report.answersMatch() ? "All answers match " + reference.label() + "." : "SOME ANSWERS DIFFER from " + reference.label() + ".");
      if (!failed.isEmpty()) {
        out.println(failed.size() + " CHECK(S) FAILED: " + String.join("; ", failed));
      }
      return new Outcome(dir, report.answersMatch(), seed, List.copyOf(order), List.copyOf(results), totals, pids, List.copyOf(failed));
    } finally {
      FileSystem.closeAll();
      if (server != null) {
        server.close();
      }
    }
  }

  private void goals(Report report, BenchmarkConfiguration baseline) {
    List<BenchmarkConfiguration> configs = options.configurations();
    if (configs.contains(BenchmarkConfiguration.RUBIX_WARM) && baseline.direct()) {
      double warm = report.speedUp(BenchmarkConfiguration.RUBIX_WARM);
      out.printf(Locale.ROOT, "Goal: rubix-warm >= 4x faster than %s on the median total: %.2fx (%s)%n", baseline.label(), warm,
          warm >= 4 ? "met" : "NOT met");
    }
    if (configs.contains(BenchmarkConfiguration.RUBIX_COLD)) {
      BenchmarkConfiguration fastest = configs.stream().filter(BenchmarkConfiguration::direct)
          .min(Comparator.comparingLong(c -> report.total(c).median())).orElse(null);
      if (fastest != null) {
        long cold = report.total(BenchmarkConfiguration.RUBIX_COLD).median();
        long direct = report.total(fastest).median();
        out.printf(Locale.ROOT, "Goal: rubix-cold no slower than the fastest direct stream (%s, %d ms): %d ms (%s)%n", fastest.label(),
            direct, cold, cold <= direct ? "met" : "NOT met");
      }
    }
    for (BenchmarkConfiguration warmed : List.of(BenchmarkConfiguration.RUBIX_WARM, BenchmarkConfiguration.RUBIX_WARM_TTL,
        BenchmarkConfiguration.RUBIX_WARM_RULES)) {
      if (configs.contains(warmed) && configs.contains(BenchmarkConfiguration.LOCAL_FILE)) {
        long warm = report.total(warmed).median();
        long local = report.total(BenchmarkConfiguration.LOCAL_FILE).median();
        double ratio = (double) warm / local;
        out.printf(Locale.ROOT, "Goal: %s total <= 1.10x local-file's (the same files on local disk): %.2fx, %d ms vs %d ms (%s)%n",
            warmed.label(), ratio, warm, local, ratio <= 1.10 ? "met" : "NOT met");
      }
    }
    compare(report, BenchmarkConfiguration.RUBIX_WARM, BenchmarkConfiguration.ALLUXIO_WARM);
    compare(report, BenchmarkConfiguration.RUBIX_WARM_TTL, BenchmarkConfiguration.ALLUXIO_WARM);
    compare(report, BenchmarkConfiguration.RUBIX_COLD, BenchmarkConfiguration.ALLUXIO_COLD);
  }

  private void compare(Report report, BenchmarkConfiguration rubix, BenchmarkConfiguration alluxio) {
    if (options.configurations().contains(rubix) && options.configurations().contains(alluxio)) {
      Spread ours = report.total(rubix);
      Spread theirs = report.total(alluxio);
      String verdict = ours.max() < theirs.min() ? "met, ranges apart" : ours.median() < theirs.median() ? "met on medians, ranges overlap"
          : "NOT met";
      out.printf(Locale.ROOT, "Goal: %s ahead of %s: %s ms vs %s ms (%s)%n", rubix.label(), alluxio.label(), ours.text(), theirs.text(), verdict);
    }
  }

  /** Generates the tables the bucket does not hold yet, with a Spark session of its own that stops before any configuration runs. */
  private void generate(Configuration conf, Map<String, String> s3a, Set<String> tables) throws IOException {
    FileSystem fs = new org.apache.hadoop.fs.Path(root()).getFileSystem(conf);
    // an Iceberg table is its catalog's entry as well as its files: without the catalog's database, write every table again
    boolean catalogMissing = options.format() == TableFormat.ICEBERG && !Files.exists(icebergCatalogFile());
    List<String> missing = new ArrayList<>();
    for (String table : tables) {
      if (catalogMissing || !fs.exists(new org.apache.hadoop.fs.Path(path(table), "_SUCCESS"))) {
        missing.add(table);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-tpcds-generate")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.hadoop.rubix.cache.enabled", "false");
    s3a.forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    BenchmarkConfiguration.S3A_CLASSIC.hadoopSettings().forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    if (options.format() == TableFormat.DELTA) {
      OpenTables.deltaSession().forEach(builder::config);
    }
    if (options.format() == TableFormat.ICEBERG) {
      Files.createDirectories(icebergCatalogFile().getParent());
      OpenTables.icebergCatalog(OpenTables.ICEBERG_CATALOG, icebergCatalogUri(), warehouse(), BenchmarkConfiguration.IcebergIo.HADOOP_FILE_IO, s3a,
          null).forEach(builder::config);
    }
    SparkSession spark = builder.getOrCreate();
    try {
      if (options.format() == TableFormat.ICEBERG) {
        spark.sql("CREATE NAMESPACE IF NOT EXISTS " + OpenTables.ICEBERG_CATALOG + "." + OpenTables.ICEBERG_NAMESPACE);
      }
      for (String table : missing) {
        long start = System.nanoTime();
        Dataset<Row> rows = TpcdsTables.generate(spark, table, options.scale());
        switch (options.format()) {
          case ORC, PARQUET -> rows.write().mode(SaveMode.Overwrite).format(options.format().key()).save(path(table));
          case DELTA -> {
            rows.write().mode(SaveMode.Overwrite).format("delta").save(path(table));
            fs.create(new org.apache.hadoop.fs.Path(path(table), "_SUCCESS")).close();
          }
          case ICEBERG -> {
            String name = OpenTables.icebergTable(OpenTables.ICEBERG_CATALOG, table);
            // an entry left by an interrupted run; without PURGE Iceberg drops it without reading its metadata
            spark.sql("DROP TABLE IF EXISTS " + name);
            // Parquet with snappy, as Spark writes Parquet and Delta (Iceberg's own default codec is zstd)
            rows.writeTo(name).using("iceberg").tableProperty("location", path(table)).tableProperty("write.format.default", "parquet")
                .tableProperty("write.parquet.compression-codec", "snappy").createOrReplace();
            fs.create(new org.apache.hadoop.fs.Path(path(table), "_SUCCESS")).close();
          }
        }
        out.printf(Locale.ROOT, "generated %s (%s) at scale %s in %d ms%n", table, options.format().title(), options.scale(), (System.nanoTime() - start) / 1_000_000);
      }
    } finally {
      spark.stop();
    }
  }

  /**
   * Copies the tables from the bucket to local disk once (untimed), for the {@link BenchmarkConfiguration#local} configurations,
   * through Hadoop's checksummed local file system: it writes a .crc file beside each data file, which local-file-checksummed
   * verifies and local-file (the raw local file system) does not read (Spark lists no file whose name starts with a dot).
   */
  private void copyToLocalDisk(Configuration conf, Set<String> tables) throws IOException {
    FileSystem source = new org.apache.hadoop.fs.Path(root()).getFileSystem(conf);
    FileSystem local = FileSystem.getLocal(conf);
    for (String table : tables) {
      org.apache.hadoop.fs.Path target = new org.apache.hadoop.fs.Path(localPath(table));
      if (local.exists(new org.apache.hadoop.fs.Path(target, "_SUCCESS"))) {
        continue;
      }
      local.delete(target, true);
      local.mkdirs(target);
      // the data files only: the committer's leftovers (_temporary markers) are not files to read
      for (FileStatus file : source.listStatus(new org.apache.hadoop.fs.Path(path(table)))) {
        String name = file.getPath().getName();
        // a Delta table is its data files and its log, whose files name the data files relative to the table's directory
        boolean log = options.format() == TableFormat.DELTA && name.equals("_delta_log");
        if ((log || file.isFile() && !name.startsWith("_") && !name.startsWith("."))
            && !FileUtil.copy(source, file.getPath(), local, new org.apache.hadoop.fs.Path(target, name), false, conf)) {
          throw new IOException("Could not copy " + file.getPath() + " to " + target);
        }
      }
      local.create(new org.apache.hadoop.fs.Path(target, "_SUCCESS")).close();
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  /** Where {@link #copyToLocalDisk} puts {@code table}: beside the S3 server's data directory, never inside a cache directory. */
  private String localPath(String table) {
    Path dir = options.dataDir().toAbsolutePath().resolveSibling(options.dataDir().getFileName() + "-local");
    return dir.resolve(options.scaleKey()).resolve(options.format().key()).resolve(table).toUri().toString();
  }

  private String root() {
    return "s3a://" + options.bucket() + "/";
  }

  /** The Iceberg catalog's sqlite database of this bucket and scale: beside the S3 server's data directory, never in a cache. */
  private Path icebergCatalogFile() {
    Path dir = options.dataDir().toAbsolutePath().resolveSibling(options.dataDir().getFileName() + "-iceberg");
    return dir.resolve(options.bucket() + "-" + options.scaleKey() + ".db");
  }

  private String icebergCatalogUri() {
    return "jdbc:sqlite:" + icebergCatalogFile();
  }

  /** The Iceberg catalog's warehouse; each table's location is set to its path beside the other formats' tables. */
  private String warehouse() {
    return root() + "tpcds/" + options.scaleKey() + "/" + TableFormat.ICEBERG.key();
  }

  private String path(String table) {
    return root() + "tpcds/" + options.scaleKey() + "/" + options.format().key() + "/" + table;
  }

  private Map<String, String> externalSettings() {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("fs.s3a.endpoint", options.endpoint());
    conf.put("fs.s3a.access.key", options.accessKey());
    conf.put("fs.s3a.secret.key", options.secretKey());
    conf.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    if (options.endpoint().startsWith("http://")) {
      conf.put("fs.s3a.connection.ssl.enabled", "false");
      conf.put("fs.s3a.path.style.access", "true");
    }
    return conf;
  }

  /** The jar or class directory {@code type} was loaded from. */
  private static Path codeLocation(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private S3ServerProcess startServer() throws IOException {
    Files.createDirectories(options.cacheDir());
    return startS3Server(options.dataDir(), options.cacheDir().resolveSibling("s3server.log"));
  }

  /** The S3 server in a JVM of its own (s3proxy's dependencies stay off this classpath), serving the objects under {@code dataDir}. */
  static S3ServerProcess startS3Server(Path dataDir, Path log) throws IOException {
    String lib = System.getProperty("rubix.s3server.lib", codeLocation(TpcdsBenchmark.class).resolveSibling("s3server-lib").toString());
    Path s3proxy;
    try (Stream<Path> jars = Files.list(Path.of(lib))) {
      s3proxy = jars.filter(p -> p.getFileName().toString().startsWith("s3proxy")).findFirst()
          .orElseThrow(() -> new IllegalStateException("No s3proxy jar in " + lib + " (build with ./mvnw -B -q package -pl benchmarks-tpcds -am -DskipTests)"));
    }
    Files.createDirectories(dataDir);
    return S3ServerProcess.start(List.of(s3proxy, codeLocation(S3ServerMain.class)), List.of("--dir", dataDir.toString()), log);
  }
}
