package io.rubix.hive;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.hive.testing.BookKeeperDaemon;
import io.rubix.hive.testing.HadoopConfFile;
import io.rubix.hive.testing.HiveLocalSite;
import io.rubix.hive.testing.HiveProcess;
import io.rubix.hive.testing.HiveSessionMain;
import io.rubix.hive.testing.TestClasspaths;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hive 4.0.1 (embedded HiveServer2, local MapReduce, embedded Derby metastore) in its own JVM with a
 * Hive installation's classpath plus the shaded rubix-hive jar, configured as docs/hive.md tells a
 * user: {@code fs.s3a.impl=io.rubix.hadoop.CachingS3AFileSystem} in hive-site.xml. An external ORC
 * table on s3a:// is written by Hive's INSERT and read by aggregate queries with caching off, cold
 * and warm, in embedded mode and through a BookKeeper daemon: the answers are equal, and a warm run
 * gets no bytes from the S3 server (its own JVM, counting what it serves).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HiveS3EndToEndIT {
  private static final String BUCKET = "warehouse";
  private static final int ROWS = 120_000;
  /** count(*) and sum(id) of the rows the INSERT writes (ids 0 to ROWS - 1). */
  private static final String KNOWN_TOTALS = ROWS + "\t" + (long) ROWS * (ROWS - 1) / 2 + "\t";
  private static final List<String> QUERIES = List.of(
      "SELECT count(*), sum(id), sum(amount), count(DISTINCT note), min(id), max(id) FROM sales",
      "SELECT store, count(*), sum(amount), max(note) FROM sales WHERE id % 3 = 0 GROUP BY store ORDER BY store");

  @TempDir
  static Path temp;
  private S3ServerProcess server;
  private HiveProcess hive;
  private BookKeeperDaemon daemon;

  @BeforeAll
  void start() throws IOException {
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET, "--dir", temp.resolve("s3").toString()));
    Path conf = Files.createDirectories(temp.resolve("conf"));
    HadoopConfFile.write(conf.resolve("core-site.xml"), coreSite());
    HadoopConfFile.write(conf.resolve("hive-site.xml"), hiveSite(temp.resolve("hive")));
    Files.writeString(conf.resolve("log4j2.properties"), HiveLocalSite.logToFile(temp.resolve("logs/hive.log")));
    List<Path> jars = new ArrayList<>();
    jars.add(TestClasspaths.testClasses());
    jars.add(Path.of(System.getProperty("rubix.hive.jar")));
    jars.addAll(hiveRuntime());
    daemon = BookKeeperDaemon.start(Path.of(System.getProperty("rubix.bookkeeper.dist")), temp.resolve("bookkeeper"),
        Map.of("rubix.cache.dirs", temp.resolve("hive/cache").toString()), Duration.ofMinutes(1));
    long started = System.nanoTime();
    hive = HiveProcess.start(conf, jars, temp.resolve("logs/hive-stderr.log"), Duration.ofMinutes(3));
    System.err.println("hive: session open after " + millisSince(started) + " ms");

    started = System.nanoTime();
    hive.execute("CREATE EXTERNAL TABLE sales (id BIGINT, store INT, amount DOUBLE, note STRING) STORED AS ORC"
        + " LOCATION 's3a://" + BUCKET + "/sales'");
    // rand() keeps Hive from folding the row generator into a constant at compile time
    hive.execute("INSERT INTO sales SELECT pos, pos % 17, pos * 0.5, concat('n', pos % 101)"
        + " FROM (SELECT posexplode(split(space(" + (ROWS - 1) + " + cast(rand() AS INT)), ' ')) AS (pos, v)) t");
    System.err.println("hive: CREATE and INSERT took " + millisSince(started) + " ms");
  }

  @AfterAll
  void stop() {
    if (hive != null) {
      hive.close();
    }
    if (daemon != null) {
      daemon.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * core-site.xml: the cluster's S3A settings for the test server. The keys are per bucket: Hive
   * blanks fs.s3a.access.key and fs.s3a.secret.key (hive.conf.hidden.list) in the job configurations
   * it hands to MapReduce tasks, so a task that creates the file system would have no credentials.
   */
  private Map<String, String> coreSite() {
    Map<String, String> site = new LinkedHashMap<>();
    server.s3aSettings().forEach((key, value) -> {
      if (key.equals("fs.s3a.access.key") || key.equals("fs.s3a.secret.key")) {
        site.put("fs.s3a.bucket." + BUCKET + key.substring("fs.s3a".length()), value);
      } else {
        site.put(key, value);
      }
    });
    return site;
  }

  /**
   * hive-site.xml: s3a through RubiX for Hive only (embedded mode: no daemon), as docs/hive.md
   * recommends; local MapReduce, an embedded Derby metastore, no ACID, no stats gathering.
   */
  private static Map<String, String> hiveSite(Path dir) {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    site.put("rubix.cache.dirs", dir.resolve("cache").toString());
    site.put("hive.execution.engine", "mr");
    site.put("mapreduce.framework.name", "local");
    site.putAll(HiveLocalSite.metastoreAndScratch(dir));
    return site;
  }

  @Test
  void embeddedAggregatesMatchUncachedAndTheWarmRunReadsNothingFromS3() throws IOException {
    long started = System.nanoTime();
    session(Map.of("rubix.cache.enabled", "false"));
    server.reset();
    List<List<String>> direct = run();
    S3ServerControl.Counters directCounters = server.reset();
    long directDone = System.nanoTime();
    session(Map.of("rubix.cache.enabled", "true", "rubix.cluster.embedded.mode", "true"));
    List<List<String>> cold = run();
    S3ServerControl.Counters coldCounters = server.reset();
    long coldDone = System.nanoTime();
    List<List<String>> warm = run();
    S3ServerControl.Counters warmCounters = server.reset();
    long warmDone = System.nanoTime();

    String counters = "direct " + directCounters + ", cold " + coldCounters + ", warm " + warmCounters;
    System.err.printf("hive embedded: %s; ms: direct %d, cold %d, warm %d%n", counters,
        (directDone - started) / 1_000_000, (coldDone - directDone) / 1_000_000, (warmDone - coldDone) / 1_000_000);
    assertThat(direct.get(0)).as("rows Hive wrote").singleElement().asString().startsWith(KNOWN_TOTALS);
    assertThat(direct.get(1)).hasSize(17);
    assertThat(cold).isEqualTo(direct);
    assertThat(warm).isEqualTo(direct);
    assertThat(directCounters.bytes()).as("uncached run reads from S3: %s", counters).isPositive();
    assertThat(coldCounters.bytes()).as("cold run reads from S3: %s", counters).isPositive();
    assertThat(warmCounters.bytes()).as("bytes served on the warm run: %s", counters).isZero();
    assertThat(warmCounters.gets()).as("GETs on the warm run: %s", counters).isZero();
  }

  /**
   * The layout docs/hive.md recommends on YARN: the engine JVMs share the node's BookKeeper daemon
   * (here the packaged distribution's bin/rubix-bookkeeper on the same cache directories), which the
   * shaded jar's relocated Thrift client talks to. Its metadata starts empty, so the cold run reads
   * from S3 and the warm run must not.
   */
  @Test
  void throughTheBookKeeperDaemonTheWarmRunReadsNothingFromS3() throws IOException {
    String query = QUERIES.get(0);
    try {
      session(Map.of("rubix.cache.enabled", "true", "rubix.cluster.embedded.mode", "false",
          "rubix.network.bookkeeper.server.port", Integer.toString(daemon.port())));
      server.reset();
      List<String> cold = hive.execute(query);
      S3ServerControl.Counters coldCounters = server.reset();
      List<String> warm = hive.execute(query);
      S3ServerControl.Counters warmCounters = server.reset();

      String counters = "cold " + coldCounters + ", warm " + warmCounters;
      System.err.println("hive with the BookKeeper daemon: " + counters);
      assertThat(cold).singleElement().asString().startsWith(KNOWN_TOTALS);
      assertThat(warm).isEqualTo(cold);
      assertThat(coldCounters.bytes()).as("cold run reads from S3: %s", counters).isPositive();
      assertThat(warmCounters.bytes()).as("bytes served on the warm run: %s", counters).isZero();
    } finally {
      session(Map.of("rubix.cluster.embedded.mode", "true"));
    }
  }

  /** Changes the session's settings for its next queries, as a user would with SET. */
  private void session(Map<String, String> settings) throws IOException {
    for (Map.Entry<String, String> setting : settings.entrySet()) {
      hive.execute("SET " + setting.getKey() + "=" + setting.getValue());
    }
    hive.closeFileSystems();
  }

  private List<List<String>> run() throws IOException {
    List<List<String>> answers = new ArrayList<>();
    for (String query : QUERIES) {
      answers.add(hive.execute(query));
    }
    return answers;
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /** The jars of a Hive 4.0.1 installation on Hadoop 3.4.3, as rubix-hive-runtime resolved them. */
  private static List<Path> hiveRuntime() throws IOException {
    return TestClasspaths.fromFile("rubix.hive.runtime.classpath", "run through Maven");
  }
}
