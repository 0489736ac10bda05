package io.rubix.benchmarks.tpcds;

import io.rubix.benchmarks.tpcds.alluxio.AlluxioS3AFileSystem;
import io.rubix.testing.S3ServerControl;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One configuration's run, in a JVM of its own that {@link TpcdsBenchmark} starts (so no configuration
 * inherits another's JIT, heap or file system state): reads a {@link RunSpec} from stdin, prints one
 * line per timed query to stdout, writes a {@link RunResult} to the spec's output file, exits 0.
 *
 * <p>It runs the first query once untimed (JIT and Spark start-up), warm configurations then run every
 * query once untimed to fill their cache, and then come the timed passes over all queries. Direct
 * configurations start each query with new file system instances; cold ones also empty their cache
 * before it.
 */
public final class ConfigurationRun {
  private final RunSpec spec;
  private final BenchmarkConfiguration configuration;
  private final PrintStream out;
  private final Path cacheDir;
  private final S3ServerControl control;
  private SparkSession spark;
  /** The Iceberg catalogs made so far, one per timed query (rubix-fileio-cold, iceberg-s3fileio). */
  private int freshCatalogs;
  /** Each Iceberg table's current metadata file, for the new catalogs. */
  private final Map<String, String> metadataLocations = new LinkedHashMap<>();

  ConfigurationRun(RunSpec spec, PrintStream out) {
    this.spec = spec;
    this.configuration = spec.configuration();
    this.out = out;
    this.cacheDir = Path.of(spec.cacheDir());
    this.control = spec.control() == null ? null : new S3ServerControl(URI.create(spec.control()));
  }

  public static void main(String[] args) {
    int status = 0;
    try {
      RunSpec spec = Json.read(System.in, RunSpec.class);
      RunResult result = new ConfigurationRun(spec, System.out).run();
      Json.write(Path.of(spec.output()), result);
    } catch (Throwable e) {
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    // Spark leaves non-daemon threads behind
    System.exit(status);
  }

  RunResult run() throws IOException {
    Map<String, String> sql = new LinkedHashMap<>();
    spec.queries().forEach(query -> sql.put(query, TpcdsTables.query(query)));
    emptyDirectory(cacheDir);
    spark = session();
    try {
      registerTables(OpenTables.ICEBERG_CATALOG);
      newFileSystems();
      String first = spec.queries().get(0);
      long start = System.nanoTime();
      spark.sql(sql.get(first)).collectAsList();
      long warmUp = (System.nanoTime() - start) / 1_000_000;
      out.printf(Locale.ROOT, "[%s] untimed warm-up query %s: %d ms%n", configuration.label(), first, warmUp);
      if (configuration.warmedUp()) {
        start = System.nanoTime();
        sql.values().forEach(text -> spark.sql(text).collectAsList());
        out.printf(Locale.ROOT, "[%s] untimed warm-up run of all queries: %d ms%n", configuration.label(), (System.nanoTime() - start) / 1_000_000);
      }
      Map<String, List<Iteration>> iterations = new LinkedHashMap<>();
      for (int pass = 1; pass <= spec.iterations(); pass++) {
        for (Map.Entry<String, String> query : sql.entrySet()) {
          Iteration iteration = timed(query.getValue());
          iterations.computeIfAbsent(query.getKey(), q -> new ArrayList<>()).add(iteration);
          out.printf(Locale.ROOT, "[%s] %s iteration %d/%d: %d ms, %d rows, %s%n", configuration.label(), query.getKey(), pass, spec.iterations(),
              iteration.millis(), iteration.rows(), served(iteration));
        }
      }
      List<QueryResult> results = new ArrayList<>();
      iterations.forEach((query, runs) -> results.add(new QueryResult(query, configuration, runs)));
      return new RunResult(ProcessHandle.current().pid(), spark.version(), warmUp, results);
    } finally {
      spark.stop();
      FileSystem.closeAll();
    }
  }

  /**
   * Makes the query's table names resolve: a temporary view per table over its files (ORC, Parquet, a Delta table's directory) or
   * over the Iceberg table of the same name in catalog {@code icebergCatalog}.
   */
  private void registerTables(String icebergCatalog) {
    spec.tables().forEach((table, location) -> {
      Dataset<Row> rows = switch (spec.format()) {
        case ORC, PARQUET -> spark.read().format(spec.format().key()).load(location);
        case DELTA -> spark.read().format("delta").load(location);
        case ICEBERG -> spark.table(OpenTables.icebergTable(icebergCatalog, table));
      };
      rows.createOrReplaceTempView(table);
    });
  }

  private Iteration timed(String sql) throws IOException {
    if (configuration.emptiedPerQuery()) {
      emptyCache();
    } else if (configuration.direct()) {
      newFileSystems();
    }
    if (configuration.newIcebergCatalogPerQuery()) {
      freshIcebergCatalog();
    }
    if (control != null) {
      control.reset();
    }
    long start = System.nanoTime();
    List<Row> rows = spark.sql(sql).collectAsList();
    long elapsed = (System.nanoTime() - start) / 1_000_000;
    if (control == null) {
      return new Iteration(elapsed, rows.size(), digest(rows), -1, -1, -1, -1);
    }
    Map<String, Long> requests = control.requests();
    S3ServerControl.Counters served = control.reset();
    // object by object, in this configuration's log: which files a pass asked the store for
    System.err.println("[" + configuration.label() + "] requests: " + requests);
    return new Iteration(elapsed, rows.size(), digest(rows), served.gets(), served.heads(), served.lists(), served.bytes(),
        count(requests, "GET ", OpenTables::dataFile), count(requests, "HEAD ", OpenTables::dataFile),
        count(requests, "HEAD ", OpenTables::logPointer));
  }

  /** The requests of {@code method} ({@code "GET "}) for the objects {@code objects} accepts ({@code bucket/key}). */
  private static long count(Map<String, Long> requests, String method, Predicate<String> objects) {
    return requests.entrySet().stream().filter(e -> e.getKey().startsWith(method) && objects.test(e.getKey().substring(method.length())))
        .mapToLong(Map.Entry::getValue).sum();
  }

  /**
   * rubix-fileio-cold's empty cache: CachingFileIO's cache engine is shared by every FileIO of the same settings in the JVM and held
   * by the copies Spark's tasks deserialize, which nobody closes, so it cannot be emptied under them. Instead every timed query gets
   * a new Iceberg catalog whose cache directory is new and empty (another setting, so another engine), and the views are registered
   * anew over its tables: a new reader with an empty cache, which also loads each table's metadata again. iceberg-s3fileio, which
   * it is measured against, gets new catalogs the same way, so that both load the same metadata per query. The catalogs are in the
   * session's settings from its start (Spark 4.0 did not resolve a catalog set with {@code spark.conf().set} later).
   */
  private void freshIcebergCatalog() throws IOException {
    freshCatalogs++;
    Files.createDirectories(freshCacheDir(freshCatalogs));
    Files.deleteIfExists(freshCacheDir(freshCatalogs).resolveSibling("catalog-" + freshCatalogs + ".db"));
    Catalog main = ((SparkCatalog) spark.sessionState().catalogManager().catalog(OpenTables.ICEBERG_CATALOG)).icebergCatalog();
    Catalog fresh = ((SparkCatalog) spark.sessionState().catalogManager().catalog(freshCatalog(freshCatalogs))).icebergCatalog();
    for (String table : spec.tables().keySet()) {
      TableIdentifier id = TableIdentifier.of(OpenTables.ICEBERG_NAMESPACE, table);
      String metadata = metadataLocations.computeIfAbsent(table,
          t -> ((HasTableOperations) main.loadTable(id)).operations().current().metadataFileLocation());
      // the JDBC catalog keys its entries by the catalog's name: the table's current metadata file, registered in this one's database
      fresh.registerTable(id, metadata);
    }
    registerTables(freshCatalog(freshCatalogs));
  }

  private static String freshCatalog(int n) {
    return OpenTables.ICEBERG_CATALOG + "_" + n;
  }

  private Path freshCacheDir(int n) {
    return cacheDir.resolve("fileio-" + n);
  }

  private Map<String, String> icebergCatalogSettings(String name, String cache) {
    return OpenTables.icebergCatalog(name, spec.icebergCatalog(), spec.icebergWarehouse(), configuration.icebergIo(), spec.s3a(), cache);
  }

  private static String served(Iteration iteration) {
    if (iteration.bytes() < 0) {
      return "S3 not counted";
    }
    return String.format(Locale.ROOT, "%.2f MB from S3 in %d GETs, %d HEADs, %d LISTs", iteration.bytes() / 1e6, iteration.gets(),
        iteration.heads(), iteration.lists());
  }

  /** SHA-256 of the rows as text, sorted: the same answer in any row order has the same digest. */
  private static String digest(List<Row> rows) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    rows.stream().map(Row::toString).sorted().forEach(row -> {
      sha.update(row.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) '\n');
    });
    return HexFormat.of().formatHex(sha.digest());
  }

  /** Drops the JVM's file system instances and creates the bucket's next one here, so every task gets this one. */
  private void newFileSystems() throws IOException {
    FileSystem.closeAll();
    new org.apache.hadoop.fs.Path(spec.bucketRoot()).getFileSystem(spark.sessionState().newHadoopConf());
  }

  /**
   * Closes the caching file systems (releasing RubiX's in-process cache metadata; Alluxio's cache
   * manager outlives its file systems and is closed on its own), deletes the cached data and starts
   * new file systems over the empty directory.
   */
  private void emptyCache() throws IOException {
    FileSystem.closeAll();
    if (configuration.alluxio()) {
      AlluxioS3AFileSystem.closeCacheManager();
    }
    emptyDirectory(cacheDir);
    newFileSystems();
  }

  private void emptyDirectory(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).toList()) {
          Files.delete(file);
        }
      }
    }
    Files.createDirectories(dir);
    if (configuration.alluxio()) {
      Files.createDirectories(alluxioDir().resolve("LOCAL"));
    }
  }

  private Path alluxioDir() {
    return cacheDir.resolve("alluxio");
  }

  private SparkSession session() {
    Map<String, String> hadoop = new LinkedHashMap<>(spec.s3a());
    hadoop.putAll(configuration.hadoopSettings(spec.format(), spec.bucketRoot()));
    hadoop.put("rubix.cache.dirs", cacheDir.toString());
    hadoop.put("rubix.cache.jmx.enabled", "false");
    if (configuration.rubix()) {
      // tuning runs: -Drubix.<key>=<value> on the benchmark's java command line reaches the RubiX configurations
      System.getProperties().stringPropertyNames().stream().filter(key -> key.startsWith("rubix.") && !key.startsWith("rubix.s3server."))
          .forEach(key -> hadoop.put(key, System.getProperty(key)));
    } else {
      hadoop.put("rubix.cache.enabled", "false");
    }
    if (configuration.alluxio()) {
      hadoop.put("alluxio.user.client.cache.dirs", alluxioDir().toString());
    }
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-tpcds-" + configuration.label())
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4");
    hadoop.forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    if (spec.format() == TableFormat.DELTA) {
      OpenTables.deltaSession().forEach(builder::config);
    }
    if (spec.format() == TableFormat.ICEBERG) {
      icebergCatalogSettings(OpenTables.ICEBERG_CATALOG, cacheDir.resolve("fileio").toString()).forEach(builder::config);
      if (configuration.newIcebergCatalogPerQuery()) {
        for (int n = 1; n <= spec.queries().size() * spec.iterations(); n++) {
          // a database of its own: sqlite lets one connection write while another catalog's holds the main database
          OpenTables.icebergCatalog(freshCatalog(n), "jdbc:sqlite:" + freshCacheDir(n).resolveSibling("catalog-" + n + ".db"),
              spec.icebergWarehouse(), configuration.icebergIo(), spec.s3a(), freshCacheDir(n).toString()).forEach(builder::config);
        }
      }
    }
    return builder.getOrCreate();
  }
}
