package io.rubix.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rubix.hive.testing.BookKeeperDaemon;
import io.rubix.hive.testing.HadoopConfFile;
import io.rubix.hive.testing.HiveLocalSite;
import io.rubix.hive.testing.HiveProcess;
import io.rubix.hive.testing.HiveSessionMain;
import io.rubix.hive.testing.TestClasspaths;
import io.rubix.hive.testing.MiniYarnProcess;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hive 4.0.1 on Tez 0.10.4 over YARN, as docs/hive.md tells a user to set it up: a YARN cluster
 * (Hadoop's MiniYARNCluster in its own JVM; its NodeManager launches the Tez application master and
 * the task containers as processes), the node's BookKeeper daemon from the distribution, and
 * HiveServer2 (embedded, its own JVM) with {@code hive.execution.engine=tez}, the shaded rubix-hive
 * jar shipped to Tez through {@code hive.aux.jars.path} (the containers' classpath does not have it),
 * {@code rubix.cluster.embedded.mode=false} and {@code rubix.cluster.manager=yarn} pointed at the
 * ResourceManager's REST API. Hive writes an external ORC table of several files on s3a; aggregate
 * queries answer the same uncached, cold and warm; the warm run gets nothing from the S3 server
 * (its own JVM, counting what it serves); the split locations are the YARN nodes and Tez counts every
 * map task data-local. Opt-in: {@code -Phive-tez} (see docs/hive.md for its downloads and time).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HiveTezYarnIT {
  private static final String BUCKET = "warehouse";
  private static final String TABLE = "s3a://" + BUCKET + "/sales";
  private static final int FILES = 4;
  private static final int ROWS_PER_FILE = 60_000;
  private static final long ROWS = (long) FILES * ROWS_PER_FILE;
  private static final List<String> QUERIES = List.of(
      "SELECT count(*), sum(id), sum(amount), count(DISTINCT note), min(id), max(id) FROM sales",
      "SELECT store, count(*), sum(amount), max(note) FROM sales WHERE id % 3 = 0 GROUP BY store ORDER BY store");

  private static final Pattern LOCALITY_COUNTER = Pattern.compile("TezTask: +((?:DATA|RACK|OTHER)_LOCAL_TASKS): (\\d+)");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path temp;
  private S3ServerProcess server;
  private MiniYarnProcess yarn;
  private BookKeeperDaemon daemon;
  private Path conf;
  private List<Path> hiveClasspath;
  private List<String> uncached;
  private S3ServerControl.Counters uncachedCounters;
  private long uncachedMillis;

  @BeforeAll
  void start() throws IOException {
    // failsafe's default execution runs it too when -Dit.test names it; only the hive-tez execution has Tez
    assumeTrue(System.getProperty("rubix.hive.tez.runtime.classpath") != null, "Hive on Tez's classpath: run with -Phive-tez");
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET, "--dir", temp.resolve("s3").toString()));
    List<Path> tez = tezRuntime();
    Path rubixJar = Path.of(System.getProperty("rubix.hive.jar"));

    // the containers' classpath as a NodeManager host has it: Hadoop's, Hive's and Tez's jars and the
    // cluster's core-site.xml; the RubiX jar comes with each Tez session (hive.aux.jars.path)
    Path nodeConf = Files.createDirectories(temp.resolve("node-conf"));
    HadoopConfFile.write(nodeConf.resolve("core-site.xml"), coreSite());
    List<Path> containerClasspath = new ArrayList<>();
    containerClasspath.add(nodeConf);
    containerClasspath.addAll(tez);
    conf = Files.createDirectories(temp.resolve("conf"));
    long started = System.nanoTime();
    // the cluster's own JVM runs Hadoop and no Hive: hive-exec bundles an older commons-lang3, with
    // which the ResourceManager's REST API fails (NoSuchMethodError on Range.of, HTTP 500)
    List<Path> yarnClasspath = Stream.concat(Stream.of(TestClasspaths.testClasses()),
        tez.stream().filter(jar -> !jar.toString().contains("/org/apache/hive/"))).toList();
    yarn = MiniYarnProcess.start(temp.resolve("yarn"), yarnClasspath,
        containerClasspath, conf.resolve("yarn-site.xml"), List.of(MiniYarnProcess.siteLocalAddress()), Map.of(), Duration.ofMinutes(2));
    System.err.println("yarn: started after " + millisSince(started) + " ms, ResourceManager " + yarn.resourceManager());

    daemon = BookKeeperDaemon.start(Path.of(System.getProperty("rubix.bookkeeper.dist")), temp.resolve("bookkeeper"),
        Map.of("rubix.cache.dirs", temp.resolve("cache").toString()), Duration.ofMinutes(1));
    HadoopConfFile.write(conf.resolve("core-site.xml"), coreSite());
    HadoopConfFile.write(conf.resolve("hive-site.xml"), hiveSite(temp.resolve("hive"), rubixJar));
    Files.writeString(conf.resolve("log4j2.properties"), HiveLocalSite.logToFile(temp.resolve("logs/hive.log")));
    hiveClasspath = new ArrayList<>();
    hiveClasspath.add(TestClasspaths.testClasses());
    hiveClasspath.add(rubixJar);
    hiveClasspath.addAll(tez);

    // the first HiveServer2 writes the table and reads it uncached; its Tez session (application
    // master and its file systems) ends with it, so the cached runs start in a fresh one
    try (HiveProcess hive = startHive()) {
      hive.execute("SET rubix.cache.enabled=false");
      started = System.nanoTime();
      hive.execute("CREATE EXTERNAL TABLE sales (id BIGINT, store INT, amount DOUBLE, note STRING) STORED AS ORC"
          + " LOCATION '" + TABLE + "'");
      for (int file = 0; file < FILES; file++) {
        long first = (long) file * ROWS_PER_FILE;
        // rand() keeps Hive from folding the row generator into a constant at compile time
        hive.execute("INSERT INTO sales SELECT pos + " + first + ", (pos + " + first + ") % 17, (pos + " + first + ") * 0.5,"
            + " concat('n', (pos + " + first + ") % 101)"
            + " FROM (SELECT posexplode(split(space(" + (ROWS_PER_FILE - 1) + " + cast(rand() AS INT)), ' ')) AS (pos, v)) t");
      }
      System.err.println("hive on tez: CREATE and " + FILES + " INSERTs took " + millisSince(started) + " ms");
      server.reset();
      started = System.nanoTime();
      uncached = run(hive);
      uncachedMillis = millisSince(started);
      uncachedCounters = server.reset();
    }
  }

  @AfterAll
  void stop() {
    if (daemon != null) {
      daemon.close();
    }
    if (yarn != null) {
      yarn.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void cachedAnswersEqualUncachedAndTheWarmRunReadsNothingFromS3() throws IOException {
    Path hiveLog = temp.resolve("logs/hive.log");
    try (HiveProcess hive = startHive()) {
      long logStart = Files.size(hiveLog);
      server.reset();
      long started = System.nanoTime();
      List<String> cold = run(hive);
      long coldMillis = millisSince(started);
      S3ServerControl.Counters coldCounters = server.reset();
      started = System.nanoTime();
      List<String> warm = run(hive);
      long warmMillis = millisSince(started);
      S3ServerControl.Counters warmCounters = server.reset();

      String counters = "uncached " + uncachedCounters + ", cold " + coldCounters + ", warm " + warmCounters;
      System.err.printf("hive on tez: %s; ms: uncached %d, cold %d, warm %d%n", counters, uncachedMillis, coldMillis, warmMillis);
      assertThat(uncached.get(0)).as("rows Hive wrote").startsWith(ROWS + "\t" + ROWS * (ROWS - 1) / 2 + "\t");
      assertThat(uncached).hasSize(1 + 17);
      assertThat(cold).isEqualTo(uncached);
      assertThat(warm).isEqualTo(uncached);
      assertThat(uncachedCounters.bytes()).as("uncached run reads from S3: %s", counters).isPositive();
      assertThat(coldCounters.bytes()).as("cold run reads from S3: %s", counters).isPositive();
      assertThat(warmCounters.bytes()).as("bytes served on the warm run: %s", counters).isZero();
      assertThat(warmCounters.gets()).as("GETs on the warm run: %s", counters).isZero();

      // Tez's DAG counters, as Hive logs them after each DAG: every map task ran on the host its split named
      byte[] logBytes = Files.readAllBytes(hiveLog);
      String log = new String(logBytes, (int) logStart, logBytes.length - (int) logStart, StandardCharsets.UTF_8);
      Map<String, Long> locality = localityCounters(log);
      System.err.println("hive on tez: task locality of the cold and warm runs " + locality);
      assertThat(locality).as("Tez's locality counters in %s", hiveLog)
          .containsEntry("DATA_LOCAL_TASKS", 2L * QUERIES.size() * FILES)
          .doesNotContainKeys("RACK_LOCAL_TASKS", "OTHER_LOCAL_TASKS");
    }
  }

  /** Sums the DAG counters DATA_LOCAL_TASKS, RACK_LOCAL_TASKS and OTHER_LOCAL_TASKS over the DAGs of a Hive log. */
  private static Map<String, Long> localityCounters(String log) {
    Map<String, Long> sums = new TreeMap<>();
    Matcher counter = LOCALITY_COUNTER.matcher(log);
    while (counter.find()) {
      sums.merge(counter.group(1), Long.parseLong(counter.group(2)), Long::sum);
    }
    return sums;
  }

  /**
   * The hosts {@code listLocatedStatus} reports for each file of the table (what Hive's split
   * generator groups splits by) are the NodeManagers the ResourceManager lists as RUNNING.
   */
  @Test
  void splitLocationsAreTheResourceManagersNodes() throws IOException {
    List<String> nodes = yarn.runningNodes();
    assertThat(nodes).as("RUNNING NodeManagers of %s", yarn.resourceManager()).hasSize(1);
    try (HiveProcess hive = startHive()) {
      List<String> locations = hive.locations(TABLE);
      System.err.println("hive on tez: split locations " + locations + ", YARN nodes " + nodes);
      assertThat(locations).hasSize(FILES);
      assertThat(locations).allSatisfy(line -> assertThat(line.substring(line.indexOf('\t') + 1)).isEqualTo(nodes.get(0)));
    }
  }

  private HiveProcess startHive() throws IOException {
    return HiveProcess.start(conf, hiveClasspath, temp.resolve("logs/hive-stderr.log"), Duration.ofMinutes(5));
  }

  /** core-site.xml: the S3A settings for the test server, the keys per bucket (Hive blanks fs.s3a.access.key in task configurations). */
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
   * hive-site.xml: docs/hive.md's YARN settings (the daemon, the yarn cluster manager) and Hive on
   * Tez: the jar through hive.aux.jars.path, small containers, every split its own task (the files
   * are far below Tez's default grouping size), no fetch-task shortcut.
   */
  private Map<String, String> hiveSite(Path dir, Path rubixJar) {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    site.put("rubix.cache.dirs", temp.resolve("cache").toString());
    site.put("rubix.cluster.embedded.mode", "false");
    site.put("rubix.network.bookkeeper.server.port", Integer.toString(daemon.port()));
    site.put("rubix.cluster.manager", "yarn");
    site.put("rubix.cluster.yarn.resourcemanager.url", yarn.resourceManager().toString());
    site.put("hive.aux.jars.path", rubixJar.toUri().toString());

    String javaOptions = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 " + String.join(" ", HiveProcess.javaOptions());
    site.put("hive.execution.engine", "tez");
    site.put("tez.use.cluster.hadoop-libs", "true");
    site.put("tez.ignore.lib.uris", "true");
    site.put("tez.staging-dir", dir.resolve("tez-staging").toString());
    site.put("tez.am.resource.memory.mb", "512");
    site.put("tez.am.launch.cmd-opts", "-Xmx384m " + javaOptions);
    site.put("tez.am.node-blacklisting.enabled", "false");
    site.put("hive.tez.container.size", "512");
    site.put("hive.tez.java.opts", "-Xmx384m " + javaOptions);
    site.put("tez.grouping.min-size", "1");
    site.put("tez.grouping.max-size", "1");
    site.put("hive.fetch.task.conversion", "none");
    site.put("hive.user.install.directory", dir.resolve("install").toUri().toString());
    site.put("hive.tez.exec.print.summary", "true");

    site.putAll(HiveLocalSite.metastoreAndScratch(dir));
    return site;
  }

  private static List<String> run(HiveProcess hive) throws IOException {
    List<String> answers = new ArrayList<>();
    for (String query : QUERIES) {
      answers.addAll(hive.execute(query));
    }
    return answers;
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /** Hive 4.0.1's installation with Tez 0.10.4 and Hadoop's YARN mini cluster, as rubix-hive-tez-runtime resolved them. */
  private static List<Path> tezRuntime() throws IOException {
    return TestClasspaths.fromFile("rubix.hive.tez.runtime.classpath", "run through Maven with -Phive-tez");
  }
}
