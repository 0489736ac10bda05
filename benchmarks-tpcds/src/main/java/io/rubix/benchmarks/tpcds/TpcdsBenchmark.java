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
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * TPC-DS on Spark 4 (local mode) over ORC tables in S3: direct S3A input streams against S3A through
 * RubiX with an empty and with a warm cache. Data is generated once per scale and reused. By default
 * the store is an S3 server on loopback (its own JVM) that adds a first-byte latency to every GET and
 * limits each connection's bandwidth, like a cloud object store seen from a nearby VM.
 *
 * <p>Direct configurations start each query with new file system instances, so nothing a direct S3A
 * stream keeps in memory carries over between queries; RubiX cold also empties its cache before every
 * query; RubiX warm and Alluxio warm (the peer: Alluxio 2.9.6's {@code LocalCacheFileSystem} over S3A)
 * run every query once untimed and keep their caches. Every answer is compared with the reference
 * configuration's (the first direct S3A one).
 */
public final class TpcdsBenchmark {
  private static final String FORMAT = "orc";

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
    System.exit(outcome.answersMatch() ? 0 : 1);
  }

  /** What a run produced. */
  record Outcome(Path resultsDir, boolean answersMatch, Map<String, Long> totals) {}

  Outcome run() throws IOException {
    List<String> queries = options.queries();
    Set<String> tables = new TreeSet<>();
    Map<String, String> sql = new LinkedHashMap<>();
    for (String query : queries) {
      sql.put(query, TpcdsTables.query(query));
      tables.addAll(TpcdsTables.tablesOf(sql.get(query)));
    }
    String store = options.endpoint() == null
        ? String.format(Locale.ROOT, "embedded S3 server on loopback: first-byte latency %d ms per GET, bandwidth %s per connection",
            options.latencyMs(), options.bandwidth() == 0 ? "unlimited" : String.format(Locale.ROOT, "%.0f MB/s", options.bandwidth() / 1e6))
        : "external S3 endpoint " + options.endpoint();
    out.printf(Locale.ROOT, "TPC-DS %s, scale %s, %d queries %s, %d iteration(s), tables %s%n", FORMAT.toUpperCase(Locale.ROOT),
        options.scale(), queries.size(), queries, options.iterations(), tables);
    out.println("Store: " + store);
    options.configurations().forEach(c -> out.println("  " + c.label() + ": " + c.description()));

    S3ServerProcess server = options.endpoint() == null ? startServer() : null;
    SparkSession spark = null;
    try {
      Map<String, String> s3a = server != null ? server.s3aSettings() : externalSettings();
      spark = session(s3a);
      if (server != null) {
        server.createBucket(options.bucket());
        server.settings(0, 0);
      }
      apply(spark, BenchmarkConfiguration.S3A_CLASSIC);
      generate(spark, tables);
      if (options.configurations().contains(BenchmarkConfiguration.LOCAL_FILE)) {
        copyToLocalDisk(spark, tables);
      }
      registerTables(spark, tables, false);
      if (server != null) {
        server.settings(options.latencyMs(), options.bandwidth());
      }
      BenchmarkConfiguration reference = options.configurations().stream().filter(BenchmarkConfiguration::direct).findFirst()
          .orElse(options.configurations().get(0));
      BenchmarkConfiguration baseline = options.configurations().contains(BenchmarkConfiguration.S3A_ANALYTICS)
          ? BenchmarkConfiguration.S3A_ANALYTICS : reference;
      Map<String, List<String>> answers = new HashMap<>();
      List<QueryResult> results = new ArrayList<>();
      List<BenchmarkConfiguration> order = new ArrayList<>(options.configurations());
      order.remove(reference);
      order.add(0, reference);
      for (BenchmarkConfiguration configuration : order) {
        if (configuration.local()) {
          registerTables(spark, tables, true);
        }
        results.addAll(runConfiguration(spark, server, configuration, sql, answers));
        if (configuration.local()) {
          registerTables(spark, tables, false);
        }
      }
      String header = "# TPC-DS " + FORMAT.toUpperCase(Locale.ROOT) + " on Spark " + spark.version() + ", scale " + options.scale() + "\n\n"
          + "Store: " + store + ". Medians of " + options.iterations() + " iteration(s) in ms; speed-up is vs " + baseline.label() + ".\n"
          + "Spark local[2], " + Runtime.getRuntime().availableProcessors() + " cores; answers compared with " + reference.label() + ".\n";
      Report report = new Report(options, baseline, results);
      Path dir = options.resultsDir().resolve(options.scaleKey() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
      report.write(dir, header);
      out.println();
      out.println(report.markdown(header));
      Map<String, Long> totals = new LinkedHashMap<>();
      options.configurations().forEach(c -> totals.put(c.label(), report.total(c)));
      goals(report, baseline);
      out.println("Results: " + dir);
      out.println(report.answersMatch() ? "All answers match " + reference.label() + "." : "SOME ANSWERS DIFFER from " + reference.label() + ".");
      return new Outcome(dir, report.answersMatch(), totals);
    } finally {
      if (spark != null) {
        spark.stop();
      }
      if (server != null) {
        server.close();
      }
    }
  }

  private void goals(Report report, BenchmarkConfiguration baseline) {
    List<BenchmarkConfiguration> configs = options.configurations();
    if (configs.contains(BenchmarkConfiguration.RUBIX_WARM)) {
      double warm = report.speedUp(BenchmarkConfiguration.RUBIX_WARM);
      out.printf(Locale.ROOT, "Goal: rubix-warm >= 4x faster than %s on the total: %.2fx (%s)%n", baseline.label(), warm,
          warm >= 4 ? "met" : "NOT met");
    }
    if (configs.contains(BenchmarkConfiguration.RUBIX_COLD)) {
      BenchmarkConfiguration fastest = configs.stream().filter(BenchmarkConfiguration::direct).min(Comparator.comparingLong(report::total)).orElse(null);
      if (fastest != null) {
        long cold = report.total(BenchmarkConfiguration.RUBIX_COLD);
        out.printf(Locale.ROOT, "Goal: rubix-cold no slower than the fastest direct stream (%s, %d ms): %d ms (%s)%n", fastest.label(),
            report.total(fastest), cold, cold <= report.total(fastest) ? "met" : "NOT met");
      }
    }
    if (configs.contains(BenchmarkConfiguration.RUBIX_WARM) && configs.contains(BenchmarkConfiguration.LOCAL_FILE)) {
      long warm = report.total(BenchmarkConfiguration.RUBIX_WARM);
      long local = report.total(BenchmarkConfiguration.LOCAL_FILE);
      double ratio = (double) warm / local;
      out.printf(Locale.ROOT, "Goal: rubix-warm total <= 1.10x local-file's (the same files on local disk): %.2fx, %d ms vs %d ms (%s)%n",
          ratio, warm, local, ratio <= 1.10 ? "met" : "NOT met");
    }
    if (configs.contains(BenchmarkConfiguration.RUBIX_WARM) && configs.contains(BenchmarkConfiguration.ALLUXIO_WARM)) {
      long warm = report.total(BenchmarkConfiguration.RUBIX_WARM);
      long alluxio = report.total(BenchmarkConfiguration.ALLUXIO_WARM);
      out.printf(Locale.ROOT, "Goal: rubix-warm ahead of alluxio-warm: %d ms vs %d ms (%s)%n", warm, alluxio, warm < alluxio ? "met" : "NOT met");
    }
  }

  private List<QueryResult> runConfiguration(SparkSession spark, S3ServerProcess server, BenchmarkConfiguration configuration,
      Map<String, String> sql, Map<String, List<String>> answers) throws IOException {
    apply(spark, configuration);
    if (configuration.rubix()) {
      emptyCache(spark, configuration);
    }
    if (configuration.warmedUp()) {
      long start = System.nanoTime();
      for (String query : sql.keySet()) {
        spark.sql(sql.get(query)).collectAsList();
      }
      out.printf(Locale.ROOT, "[%s] warm-up run of all queries: %d ms%n", configuration.label(), (System.nanoTime() - start) / 1_000_000);
    }
    List<QueryResult> results = new ArrayList<>();
    for (Map.Entry<String, String> query : sql.entrySet()) {
      List<Long> millis = new ArrayList<>();
      List<Long> bytes = new ArrayList<>();
      boolean matches = true;
      for (int i = 1; i <= options.iterations(); i++) {
        if (configuration == BenchmarkConfiguration.RUBIX_COLD) {
          emptyCache(spark, configuration);
        } else if (configuration.direct()) {
          apply(spark, configuration);
        }
        if (server != null) {
          server.reset();
        }
        long start = System.nanoTime();
        List<Row> rows = spark.sql(query.getValue()).collectAsList();
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        long served = server == null ? -1 : server.reset().bytes();
        List<String> answer = rows.stream().map(Row::toString).sorted().toList();
        List<String> expected = answers.putIfAbsent(query.getKey(), answer);
        boolean same = expected == null || expected.equals(answer);
        matches &= same;
        millis.add(elapsed);
        bytes.add(served);
        out.printf(Locale.ROOT, "[%s] %s iteration %d/%d: %d ms, %d rows, %s from S3%s%n", configuration.label(), query.getKey(), i,
            options.iterations(), elapsed, rows.size(), served < 0 ? "?" : String.format(Locale.ROOT, "%.2f MB", served / 1e6),
            same ? "" : " -- ANSWER DIFFERS");
      }
      results.add(new QueryResult(query.getKey(), configuration, millis, bytes, matches));
    }
    return results;
  }

  /**
   * Makes the session read with {@code configuration}: sets its Hadoop keys, drops the JVM's file
   * system instances and creates the bucket's next one here, so every task gets this one.
   */
  private void apply(SparkSession spark, BenchmarkConfiguration configuration) throws IOException {
    configuration.hadoopSettings().forEach((key, value) -> spark.conf().set(key, value));
    if (!configuration.rubix()) {
      spark.conf().set("rubix.cache.enabled", "false");
    } else {
      // tuning runs: -Drubix.<key>=<value> on the java command line reaches the RubiX configurations
      System.getProperties().stringPropertyNames().stream().filter(key -> key.startsWith("rubix.") && !key.startsWith("rubix.s3server."))
          .forEach(key -> spark.conf().set(key, System.getProperty(key)));
    }
    if (configuration == BenchmarkConfiguration.ALLUXIO_WARM) {
      Path alluxio = options.cacheDir().resolve("alluxio");
      Files.createDirectories(alluxio.resolve("LOCAL"));
      spark.conf().set("alluxio.user.client.cache.dirs", alluxio.toString());
    }
    FileSystem.closeAll();
    new org.apache.hadoop.fs.Path(root()).getFileSystem(spark.sessionState().newHadoopConf());
  }

  /** Closes the caching file systems (releasing the in-process cache metadata) and deletes the cached blocks. */
  private void emptyCache(SparkSession spark, BenchmarkConfiguration configuration) throws IOException {
    FileSystem.closeAll();
    Path dir = options.cacheDir();
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> p.toFile().delete());
      }
    }
    Files.createDirectories(dir);
    apply(spark, configuration);
  }

  private void generate(SparkSession spark, Set<String> tables) throws IOException {
    FileSystem fs = new org.apache.hadoop.fs.Path(root()).getFileSystem(spark.sessionState().newHadoopConf());
    for (String table : tables) {
      org.apache.hadoop.fs.Path done = new org.apache.hadoop.fs.Path(path(table), "_SUCCESS");
      if (fs.exists(done)) {
        continue;
      }
      long start = System.nanoTime();
      TpcdsTables.generate(spark, table, options.scale()).write().mode(SaveMode.Overwrite).orc(path(table));
      out.printf(Locale.ROOT, "generated %s at scale %s in %d ms%n", table, options.scale(), (System.nanoTime() - start) / 1_000_000);
    }
  }

  /** Copies the tables from the bucket to local disk once (untimed), for {@link BenchmarkConfiguration#LOCAL_FILE}. */
  private void copyToLocalDisk(SparkSession spark, Set<String> tables) throws IOException {
    Configuration conf = spark.sessionState().newHadoopConf();
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
        if (file.isFile() && !name.startsWith("_") && !name.startsWith(".")
            && !FileUtil.copy(source, file.getPath(), local, new org.apache.hadoop.fs.Path(target, name), false, conf)) {
          throw new IOException("Could not copy " + file.getPath() + " to " + target);
        }
      }
      local.create(new org.apache.hadoop.fs.Path(target, "_SUCCESS")).close();
    }
  }

  /** Makes the query tables the local copies ({@code local}) or the bucket's files. */
  private void registerTables(SparkSession spark, Set<String> tables, boolean local) {
    for (String table : tables) {
      spark.read().orc(local ? localPath(table) : path(table)).createOrReplaceTempView(table);
    }
  }

  /** Where {@link #copyToLocalDisk} puts {@code table}: beside the S3 server's data directory, never inside the emptied cache directory. */
  private String localPath(String table) {
    Path dir = options.dataDir().toAbsolutePath().resolveSibling(options.dataDir().getFileName() + "-local");
    return dir.resolve(options.scaleKey()).resolve(FORMAT).resolve(table).toUri().toString();
  }

  private String root() {
    return "s3a://" + options.bucket() + "/";
  }

  private String path(String table) {
    return root() + "tpcds/" + options.scaleKey() + "/" + FORMAT + "/" + table;
  }

  private SparkSession session(Map<String, String> s3a) throws IOException {
    Files.createDirectories(options.cacheDir());
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-tpcds-benchmark")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.hadoop.rubix.cache.dirs", options.cacheDir().toString())
        .config("spark.hadoop.rubix.cache.jmx.enabled", "false");
    s3a.forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    return builder.getOrCreate();
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
    String lib = System.getProperty("rubix.s3server.lib", codeLocation(TpcdsBenchmark.class).resolveSibling("s3server-lib").toString());
    Path s3proxy;
    try (Stream<Path> jars = Files.list(Path.of(lib))) {
      s3proxy = jars.filter(p -> p.getFileName().toString().startsWith("s3proxy")).findFirst()
          .orElseThrow(() -> new IllegalStateException("No s3proxy jar in " + lib + " (build with ./mvnw -B -q package -pl benchmarks-tpcds -am -DskipTests)"));
    }
    Files.createDirectories(options.dataDir());
    return S3ServerProcess.start(List.of(s3proxy, codeLocation(S3ServerMain.class)), List.of("--dir", options.dataDir().toString()),
        options.cacheDir().resolveSibling("s3server.log"));
  }
}
