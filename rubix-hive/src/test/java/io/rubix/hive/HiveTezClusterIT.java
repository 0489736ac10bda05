package io.rubix.hive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rubix.hive.testing.BookKeeperDaemon;
import io.rubix.hive.testing.DaemonMetrics;
import io.rubix.hive.testing.HadoopConfFile;
import io.rubix.hive.testing.HiveLocalSite;
import io.rubix.hive.testing.HiveProcess;
import io.rubix.hive.testing.MiniYarnProcess;
import io.rubix.hive.testing.TestClasspaths;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
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
 * Hive 4.0.1 on Tez 0.10.4 over a YARN cluster of three NodeManagers, each its own process registered
 * under its own address (127.0.0.2, .3, .4: the names YARN schedules on, Tez compares split locations
 * with, and RubiX's yarn cluster manager lists), and on each node the BookKeeper daemon of the
 * distribution with its own cache directory, its Thrift, transfer and metrics ports on the node's
 * address, a transfer secret and peer fills from the bucket. Hive's settings are the ones docs/hive.md
 * gives a YARN user; what is per node (the node's name, its daemon's address, its cache directory)
 * comes from {@code NM_HOST}, which every NodeManager puts in its containers' environment, only
 * because all nodes share one machine. Hive writes an ORC table of several files; aggregate queries
 * run uncached, cold and warm, each cached pass in its own Hive session (its own Tez application
 * master), and each node's daemon counts what its readers took from its cache, from peers and from
 * S3. With the two Tez keys docs/hive.md names ({@code tez.grouping.node.local.only}, {@code
 * tez.am.container.reuse.rack-fallback.enabled=false}) and the Capacity Scheduler's delay scheduling
 * (its two keys in the ResourceManager's capacity-scheduler.xml) each map task reads one owner's
 * splits on that owner's node; a last warm pass without the Tez keys shows what Tez does as it
 * comes. Figures go to stderr as one {@code hive tez cluster:} line of key=value pairs. Opt-in with
 * {@link HiveTezYarnIT}: {@code -Phive-tez}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HiveTezClusterIT {
  private static final String BUCKET = "warehouse";
  private static final String TABLE = "s3a://" + BUCKET + "/sales";
  private static final List<String> NODES = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");
  private static final String NODE = "${env.NM_HOST:-" + NODES.get(0) + "}";
  private static final int FILES = 6;
  private static final int ROWS_PER_FILE = 40_000;
  private static final long ROWS = (long) FILES * ROWS_PER_FILE;
  private static final List<String> QUERIES = List.of(
      "SELECT count(*), sum(id), sum(amount), count(DISTINCT note), min(id), max(id) FROM sales",
      "SELECT store, count(*), sum(amount), max(note) FROM sales WHERE id % 3 = 0 GROUP BY store ORDER BY store");
  private static final Pattern LOCALITY_COUNTER = Pattern.compile("TezTask: +((?:DATA|RACK|OTHER)_LOCAL_TASKS): (\\d+)");
  private static final Duration CONTAINERS_EXIT_TIMEOUT = Duration.ofMinutes(2);

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path temp;
  private S3ServerProcess server;
  private MiniYarnProcess yarn;
  private final List<BookKeeperDaemon> daemons = new ArrayList<>();
  private int thriftPort;
  private int transferPort;
  private int metricsPort;
  private Path conf;
  private Path tezDefaultsConf;
  private List<Path> hiveClasspath;
  private List<String> uncached;

  @BeforeAll
  void start() throws IOException {
    // failsafe's default execution runs it too when -Dit.test names it; only the hive-tez execution has Tez
    assumeTrue(System.getProperty("rubix.hive.tez.runtime.classpath") != null, "Hive on Tez's classpath: run with -Phive-tez");
    for (String node : NODES) {
      // every 127.0.0.0/8 address is this machine's on Linux; elsewhere the test cannot place nodes
      assertThat(InetAddress.getByName(node).isLoopbackAddress()).as("%s is a loopback address", node).isTrue();
    }
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET, "--dir", temp.resolve("s3").toString()));
    List<Path> tez = TestClasspaths.fromFile("rubix.hive.tez.runtime.classpath", "run through Maven with -Phive-tez");
    Path rubixJar = Path.of(System.getProperty("rubix.hive.jar"));
    // one port number for each service on every node (readers connect to a peer's transfer port by number)
    thriftPort = freePort();
    transferPort = freePort();
    metricsPort = freePort();

    Path nodeConf = Files.createDirectories(temp.resolve("node-conf"));
    HadoopConfFile.write(nodeConf.resolve("core-site.xml"), coreSite());
    List<Path> containerClasspath = new ArrayList<>();
    containerClasspath.add(nodeConf);
    containerClasspath.addAll(tez);
    conf = Files.createDirectories(temp.resolve("conf"));
    long started = System.nanoTime();
    List<Path> yarnClasspath = Stream.concat(Stream.of(TestClasspaths.testClasses()),
        tez.stream().filter(jar -> !jar.toString().contains("/org/apache/hive/"))).toList();
    yarn = MiniYarnProcess.start(temp.resolve("yarn"), yarnClasspath, containerClasspath, conf.resolve("yarn-site.xml"),
        NODES, capacityScheduler(), Duration.ofMinutes(2));
    System.err.println("hive tez cluster: YARN started after " + millisSince(started) + " ms, nodes " + yarn.runningNodes());

    for (String node : NODES) {
      daemons.add(BookKeeperDaemon.start(Path.of(System.getProperty("rubix.bookkeeper.dist")), temp.resolve("bookkeeper-" + node),
          daemonSite(node), Duration.ofMinutes(1)));
    }
    tezDefaultsConf = Files.createDirectories(temp.resolve("conf-tez-defaults"));
    // the ResourceManager's address for Hive's Tez client, which MiniYarnProcess wrote into conf
    Files.copy(conf.resolve("yarn-site.xml"), tezDefaultsConf.resolve("yarn-site.xml"));
    for (Path dir : List.of(conf, tezDefaultsConf)) {
      HadoopConfFile.write(dir.resolve("core-site.xml"), coreSite());
      HadoopConfFile.write(dir.resolve("hive-site.xml"), hiveSite(temp.resolve("hive"), rubixJar, dir.equals(conf)));
      Files.writeString(dir.resolve("log4j2.properties"), HiveLocalSite.logToFile(temp.resolve("logs/hive.log")));
    }
    hiveClasspath = new ArrayList<>();
    hiveClasspath.add(TestClasspaths.testClasses());
    hiveClasspath.add(rubixJar);
    hiveClasspath.addAll(tez);

    try (HiveProcess hive = startHive(conf)) {
      hive.execute("SET rubix.cache.enabled=false");
      started = System.nanoTime();
      hive.execute("CREATE EXTERNAL TABLE sales (id BIGINT, store INT, amount DOUBLE, note STRING) STORED AS ORC"
          + " LOCATION '" + TABLE + "'");
      for (int file = 0; file < FILES; file++) {
        long first = (long) file * ROWS_PER_FILE;
        hive.execute("INSERT INTO sales SELECT pos + " + first + ", (pos + " + first + ") % 17, (pos + " + first + ") * 0.5,"
            + " concat('n', (pos + " + first + ") % 101)"
            + " FROM (SELECT posexplode(split(space(" + (ROWS_PER_FILE - 1) + " + cast(rand() AS INT)), ' ')) AS (pos, v)) t");
      }
      System.err.println("hive tez cluster: CREATE and " + FILES + " INSERTs took " + millisSince(started) + " ms");
      server.reset();
      uncached = run(hive);
      System.err.println("hive tez cluster: uncached " + server.reset());
    }
    awaitContainersExited();
  }

  @AfterAll
  void stop() {
    daemons.forEach(BookKeeperDaemon::close);
    if (yarn != null) {
      yarn.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void eachTaskReadsItsOwnNodesCacheAndEachBlockIsFetchedOncePerCluster() throws IOException {
    List<String> owners = owners();
    System.err.println("hive tez cluster: split owners " + owners);
    assertThat(new TreeSet<>(owners)).as("the files' owners").isSubsetOf(NODES).hasSizeGreaterThan(1);

    Pass cold = pass("cold", conf);
    Pass warm = pass("warm", conf);
    // the same warm pass with Tez's grouping and container reuse as they come
    Pass tezDefaults = pass("warmTezDefaults", tezDefaultsConf);
    long cachedBytes = cold.after.stream().mapToLong(metrics -> metrics.get("rubix_cache_used_bytes")).sum();
    String figures = cold.figures() + " " + warm.figures() + " " + tezDefaults.figures() + " cachedBytes=" + cachedBytes;
    System.err.println("hive tez cluster: " + figures);

    assertThat(uncached.get(0)).as("rows Hive wrote").startsWith(ROWS + "\t" + ROWS * (ROWS - 1) / 2 + "\t");
    assertThat(cold.answers).isEqualTo(uncached);
    assertThat(warm.answers).isEqualTo(uncached);
    assertThat(tezDefaults.answers).isEqualTo(uncached);
    assertThat(cold.s3.bytes()).as("each block fetched once for the cluster: " + figures).isPositive()
        .isLessThanOrEqualTo(cachedBytes * 105 / 100);
    assertThat(warm.s3.gets()).as(figures).isZero();
    assertThat(warm.s3.bytes()).as(figures).isZero();
    assertThat(warm.engines("source_bytes")).as(figures).isZero();
    // grouped by owner: one map task per owner and query, each on its owner's node
    assertThat(warm.mapTasks()).as(figures).isEqualTo((long) QUERIES.size() * new TreeSet<>(owners).size());
    assertThat(warm.locality).as("every warm map task on the node its split names: " + figures)
        .containsOnlyKeys("DATA_LOCAL_TASKS");
    assertThat(warm.localByteShare()).as(figures).isGreaterThanOrEqualTo(0.9);
  }

  /** One pass of the queries in a fresh Hive session, with each node's counters once its containers have exited. */
  private Pass pass(String name, Path confDir) throws IOException {
    Path hiveLog = temp.resolve("logs/hive.log");
    List<DaemonMetrics> before = scrape();
    long logStart = Files.size(hiveLog);
    List<String> answers;
    long started = System.nanoTime();
    try (HiveProcess hive = startHive(confDir)) {
      answers = run(hive);
    }
    long millis = millisSince(started);
    // the readers (the application master, the task containers) report their counters to their node's daemon when their file systems close
    awaitContainersExited();
    S3ServerControl.Counters s3 = server.reset();
    byte[] logBytes = Files.readAllBytes(hiveLog);
    String log = new String(logBytes, (int) logStart, logBytes.length - (int) logStart, StandardCharsets.UTF_8);
    return new Pass(name, answers, s3, localityCounters(log), before, scrape(), millis);
  }

  /** What one pass read and from where, from the S3 server, Tez's DAG counters and each node's daemon. */
  private record Pass(String name, List<String> answers, S3ServerControl.Counters s3, Map<String, Long> locality,
      List<DaemonMetrics> before, List<DaemonMetrics> after, long millis) {
    /** The sum over the nodes of what their readers reported as {@code rubix_engines_<counter>_total} during the pass. */
    long engines(String counter) {
      return delta("rubix_engines_" + counter + "_total");
    }

    long delta(String metric) {
      long total = 0;
      for (int i = 0; i < after.size(); i++) {
        total += after.get(i).get(metric) - before.get(i).get(metric);
      }
      return total;
    }

    long mapTasks() {
      return locality.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The share of what the node's readers read that came from their own node's cache (the rest: from peers and from S3). */
    double localByteShare() {
      long local = engines("cache_hit_bytes");
      long all = local + engines("peer_bytes") + engines("source_bytes");
      return all == 0 ? 0.0 : local / (double) all;
    }

    String figures() {
      long local = engines("cache_hit_bytes");
      long peer = engines("peer_bytes");
      long source = engines("source_bytes");
      return String.format("%1$sMillis=%2$d %1$sGets=%3$d %1$sS3Bytes=%4$d %1$sDataLocal=%5$d %1$sRackLocal=%6$d %1$sOtherLocal=%7$d"
          + " %1$sLocalCacheBytes=%8$d %1$sPeerBytes=%9$d %1$sSourceBytes=%10$d %1$sLocalByteShare=%11$.3f"
          + " %1$sTransferBytesServed=%12$d %1$sPeerFillSourceBytes=%13$d",
          name, millis, s3.gets(), s3.bytes(), locality.getOrDefault("DATA_LOCAL_TASKS", 0L), locality.getOrDefault("RACK_LOCAL_TASKS", 0L),
          locality.getOrDefault("OTHER_LOCAL_TASKS", 0L), local, peer, source, localByteShare(),
          delta("rubix_transfer_served_bytes_total"), delta("rubix_peer_fill_source_bytes_total"));
    }
  }

  private List<DaemonMetrics> scrape() throws IOException {
    List<DaemonMetrics> metrics = new ArrayList<>();
    for (String node : NODES) {
      metrics.add(DaemonMetrics.scrape(node, metricsPort));
    }
    return metrics;
  }

  /** Waits until no NodeManager has a container process left (their shutdown hooks have run). */
  private void awaitContainersExited() throws IOException {
    long deadline = System.nanoTime() + CONTAINERS_EXIT_TIMEOUT.toNanos();
    for (ProcessHandle nodeManager : yarn.nodeManagers()) {
      for (ProcessHandle container : nodeManager.descendants().toList()) {
        try {
          container.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("Interrupted waiting for containers to exit", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          throw new IOException("Container process " + container.pid() + " " + container.info().commandLine().orElse("")
              + " did not exit within " + CONTAINERS_EXIT_TIMEOUT, e);
        }
      }
    }
  }

  /** The owner of each file of the table, as {@code listLocatedStatus} names it to Hive's split generator. */
  private List<String> owners() throws IOException {
    try (HiveProcess hive = startHive(conf)) {
      return hive.locations(TABLE).stream().map(line -> line.substring(line.indexOf('\t') + 1)).toList();
    }
  }

  private static Map<String, Long> localityCounters(String log) {
    Map<String, Long> sums = new TreeMap<>();
    Matcher counter = LOCALITY_COUNTER.matcher(log);
    while (counter.find()) {
      sums.merge(counter.group(1), Long.parseLong(counter.group(2)), Long::sum);
    }
    return sums;
  }

  private HiveProcess startHive(Path confDir) throws IOException {
    return HiveProcess.start(confDir, hiveClasspath, temp.resolve("logs/hive-stderr.log"), Duration.ofMinutes(5));
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
   * capacity-scheduler.xml as docs/hive.md tells a YARN user to set it: delay scheduling on (Hadoop's
   * default 40, capped at the number of nodes), so that a container request for a split's owner waits
   * for that node's heartbeat before it goes rack-local, and the same wait before it goes off-switch
   * (the default -1 lets a request with few locations go anywhere after one or two missed nodes).
   */
  private static Map<String, String> capacityScheduler() {
    return Map.of("yarn.scheduler.capacity.node-locality-delay", "40",
        "yarn.scheduler.capacity.rack-locality-additional-delay", "0");
  }

  /** What every node's daemon is given, as operations.md describes a cluster: its own address, the shared ports and secret, the store's settings for peer fills. */
  private Map<String, String> daemonSite(String node) {
    Map<String, String> site = new LinkedHashMap<>(coreSite());
    site.put("rubix.cache.dirs", temp.resolve("cache").resolve(node).toString());
    site.put("rubix.cluster.node.id", node);
    site.putAll(clusterSettings());
    site.put("rubix.network.bookkeeper.bind.address", node);
    site.put("rubix.network.transfer.bind.address", node);
    site.put("rubix.network.transfer.fetch.allowed.authorities", "s3a://" + BUCKET);
    site.put("rubix.bookkeeper.metrics.port", Integer.toString(metricsPort));
    site.put("rubix.bookkeeper.metrics.bind.address", node);
    return site;
  }

  /** The settings the daemons and the readers share. */
  private Map<String, String> clusterSettings() {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("rubix.network.bookkeeper.server.port", Integer.toString(thriftPort));
    site.put("rubix.network.transfer.server.port", Integer.toString(transferPort));
    site.put("rubix.network.transfer.secret", "hive-tez-cluster-it-secret");
    site.put("rubix.cluster.manager", "yarn");
    site.put("rubix.cluster.yarn.resourcemanager.url", yarn.resourceManager().toString());
    return site;
  }

  /**
   * hive-site.xml: docs/hive.md's YARN settings with the node's own values from {@code NM_HOST}
   * (HiveServer2, not in a container, counts as the first node), and Hive on Tez as in {@link
   * HiveTezYarnIT} but with Tez's own grouping sizes (which put all files of this small table in one
   * group); with {@code followOwners} also what docs/hive.md tells a user to set so that each map
   * task reads one owner's splits on that owner's node.
   */
  private Map<String, String> hiveSite(Path dir, Path rubixJar, boolean followOwners) {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("fs.s3a.impl", "io.rubix.hadoop.CachingS3AFileSystem");
    site.put("rubix.cache.dirs", temp.resolve("cache") + "/" + NODE);
    site.put("rubix.cluster.embedded.mode", "false");
    site.put("rubix.cluster.node.id", NODE);
    site.put("rubix.network.bookkeeper.host", NODE);
    site.putAll(clusterSettings());
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
    if (followOwners) {
      site.put("tez.grouping.node.local.only", "true");
      site.put("tez.am.container.reuse.rack-fallback.enabled", "false");
    }
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

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(0));
      return socket.getLocalPort();
    }
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }
}
