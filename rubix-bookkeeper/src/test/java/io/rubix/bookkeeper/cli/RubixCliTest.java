package io.rubix.bookkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.bookkeeper.BookKeeper;
import io.rubix.bookkeeper.BookKeeperConfig;
import io.rubix.bookkeeper.BookKeeperTestSupport;
import io.rubix.testing.S3Server;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rubix CLI run in-process against a BookKeeper and an S3 server in this JVM: output, exit codes, what reached the cache. */
class RubixCliTest {
  private static final int MIB = 1024 * 1024;
  private static S3Server s3;

  @TempDir
  Path cacheDir;
  @TempDir
  Path confDir;
  private BookKeeper bookKeeper;
  private Path conf;

  private record Run(int exitCode, String out, String err) {}

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("bucket");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @BeforeEach
  void startBookKeeper() throws Exception {
    bookKeeper = BookKeeper.start(BookKeeperConfig.from(BookKeeperTestSupport.daemonConf(cacheDir)));
    // what an operator's rubix-site.xml holds for the CLI: the cache, the object store, no port (given with --port)
    Configuration site = new Configuration(false);
    Configuration s3a = s3.s3aConfiguration();
    for (String key : List.of("fs.s3a.endpoint", "fs.s3a.endpoint.region", "fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.path.style.access",
        "fs.s3a.connection.ssl.enabled", "fs.s3a.aws.credentials.provider", "fs.s3a.change.detection.version.required",
        "fs.s3a.attempts.maximum", "fs.s3a.retry.limit")) {
      site.set(key, s3a.get(key));
    }
    site.set("rubix.cache.dirs", cacheDir.toString());
    conf = confDir.resolve("rubix-site.xml");
    try (OutputStream out = Files.newOutputStream(conf)) {
      site.writeXml(out);
    }
  }

  @AfterEach
  void stopBookKeeper() {
    bookKeeper.close();
  }

  private static Run rubix(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new RubixCli(name -> null).execute(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  /** The common options of a command run against this test's daemon. */
  private String[] daemon(String command, String... args) {
    List<String> all = new ArrayList<>(List.of(command, "--conf", conf.toString(), "--port", Integer.toString(bookKeeper.port())));
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  private static void write(String path, int size) throws Exception {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration());
        FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
  }

  @Test
  void warmupFillsTheCacheAndARerunFetchesOnlyWhatIsMissing() throws Exception {
    write("s3a://bucket/warm/a.bin", 3 * MIB + 17);
    write("s3a://bucket/warm/b.bin", MIB);
    write("s3a://bucket/warm/skip.txt", 10);
    s3.store().reset();

    Run first = rubix(daemon("warmup", "--parallelism", "3", "s3a://bucket/warm/*.bin"));
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out()).contains("warmed up 2 files, 4.0 MiB: 0 B already cached, 4.0 MiB fetched from the source");
    assertThat(first.err()).contains("100.0%", "4.0 MiB / 4.0 MiB");
    assertThat(s3.store().bytesServed()).isGreaterThanOrEqualTo(4L * MIB + 17);
    // the 17-byte tail is charged a 4 KiB allocation unit, and each of the 2 objects one more
    assertThat(bookKeeper.service().usage().usedBytes()).isEqualTo(4L * MIB + 3 * 4096);

    Run status = rubix(daemon("status"));
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out()).contains("BookKeeper test-node at 127.0.0.1:" + bookKeeper.port() + ": up", "2 objects",
        "(4/4 blocks)  s3a://bucket/warm/a.bin", "(1/1 blocks)  s3a://bucket/warm/b.bin", "expiry      off (rubix.cache.expire.after.idle)",
        "peer fills  off: no store allowed (set rubix.network.transfer.fetch.allowed.authorities)",
        "hit ratio   0.0% of 4.0 MiB read by this node's JVMs came from the cache; 4.0 MiB from the source, 0 B from peers; 0 fallbacks");
    assertThat(status.out().indexOf("a.bin")).as("largest first").isLessThan(status.out().indexOf("b.bin"));

    s3.store().reset();
    Run again = rubix(daemon("warmup", "--no-progress", "s3a://bucket/warm/"));
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out()).contains("warmed up 3 files", "4.0 MiB already cached, 10 B fetched from the source");
    assertThat(again.err()).isEmpty();
    assertThat(s3.store().gets()).as("only skip.txt is fetched").isEqualTo(1);

    Run evict = rubix(daemon("evict", "s3a://bucket/warm/a.bin", "s3a://bucket/warm/none.bin"));
    assertThat(evict.exitCode()).as(evict.err()).isZero();
    assertThat(evict.out()).contains("evicted 1 cached version of s3a://bucket/warm/a.bin", "nothing cached for s3a://bucket/warm/none.bin");

    s3.store().reset();
    Run resumed = rubix(daemon("warmup", "--no-progress", "s3a://bucket/warm/*"));
    assertThat(resumed.exitCode()).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("1.0 MiB already cached, 3.0 MiB fetched from the source");
    assertThat(s3.store().bytesServed()).isEqualTo(3L * MIB + 17);

    List<Path> dataFiles = bookKeeper.service().topFiles(10).stream().map(f -> Path.of(f.dataFile())).toList();
    assertThat(dataFiles).hasSize(3).allSatisfy(f -> assertThat(f).exists());
    Run clear = rubix(daemon("clear"));
    assertThat(clear.exitCode()).as(clear.err()).isZero();
    assertThat(clear.out()).contains("cleared 3 cached object versions on test-node");
    assertThat(bookKeeper.service().usage().usedBytes()).isZero();
    assertThat(dataFiles).allSatisfy(f -> assertThat(f).doesNotExist());
  }

  @Test
  void warmupWithAGlobCachesExactlyTheMatchedIncludedFilesAndStatusShowsTheRule() throws Exception {
    String[] rules = {"rubix.cache.rules=tmp,dims", "rubix.cache.rule.tmp.paths=s3a://bucket/lake/tmp/**", "rubix.cache.rule.tmp.action=exclude",
        "rubix.cache.rule.dims.paths=s3a://bucket/lake/dim_*/**", "rubix.cache.rule.dims.quota=10m"};
    bookKeeper.close();
    Configuration daemonConf = BookKeeperTestSupport.daemonConf(cacheDir);
    for (String rule : rules) {
      daemonConf.set(rule.substring(0, rule.indexOf('=')), rule.substring(rule.indexOf('=') + 1));
    }
    bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf));
    write("s3a://bucket/lake/dim_a/part-0.bin", MIB);
    write("s3a://bucket/lake/dim_a/sub/part-1.bin", MIB);
    write("s3a://bucket/lake/dim_b/part-0.bin", MIB);
    write("s3a://bucket/lake/tmp/spill.bin", MIB);
    write("s3a://bucket/lake/fact/part-0.bin", MIB);
    List<String> args = new ArrayList<>(List.of(daemon("warmup", "--no-progress")));
    for (String rule : rules) {
      args.addAll(List.of("-D", rule));
    }
    args.addAll(List.of("s3a://bucket/lake/dim_*", "s3a://bucket/lake/tmp/*.bin"));
    s3.store().reset();

    Run warmup = rubix(args.toArray(String[]::new));

    assertThat(warmup.exitCode()).as(warmup.err()).isZero();
    assertThat(warmup.out()).contains("warmed up 3 files, 3.0 MiB: 0 B already cached, 3.0 MiB fetched from the source",
        "skipped 1 file excluded from the cache by path rules (rubix.cache.rules)");
    assertThat(bookKeeper.service().topFiles(10).stream().map(file -> file.version().path()).sorted().toList())
        .containsExactly("s3a://bucket/lake/dim_a/part-0.bin", "s3a://bucket/lake/dim_a/sub/part-1.bin", "s3a://bucket/lake/dim_b/part-0.bin");
    assertThat(s3.store().bytesServed()).as("the excluded file is not read").isEqualTo(3L * MIB);
    assertThat(bookKeeper.service().counters().ruleUsage().get(0).usedBytes()).isEqualTo(3L * (MIB + 4096));

    Run status = rubix(daemon("status"));
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out()).contains("rule        dims: 3.0 MiB of 10.0 MiB quota (30.1%), 3 objects, 0 evictions, 0 denied");
    Run json = rubix(daemon("stats", "--json"));
    assertThat(json.out()).contains("\"rules\":[{\"rule\":\"dims\",\"quotaBytes\":10485760,\"usedBytes\":3158016,\"objects\":3,");
  }

  @Test
  void statsPrintsCountersOrJson() {
    Run lines = rubix(daemon("stats"));
    assertThat(lines.exitCode()).as(lines.err()).isZero();
    assertThat(lines.out()).contains("rubix_cache_used_bytes 0\n", "rubix_bookkeeper_errors 0\n");

    Run json = rubix(daemon("stats", "--json", "--top", "5"));
    assertThat(json.exitCode()).as(json.err()).isZero();
    assertThat(json.out().strip()).startsWith("{\"address\":\"127.0.0.1:" + bookKeeper.port() + "\",\"nodeId\":\"test-node\"").endsWith("}}")
        .contains("\"blockSize\":1048576", "\"usedBytes\":0", "\"directory\":\"" + cacheDir.resolve("bookkeeper") + "\"",
            "\"rubix_bookkeeper_status_calls\":0");
  }

  @Test
  void badArgumentsPrintUsageAndExitWithTwo() {
    for (String[] args : List.of(new String[] {}, new String[] {"bogus"}, new String[] {"status", "--port", "many"},
        new String[] {"status", "--port", "70000"}, new String[] {"status", "--conf", "/nonexistent/rubix-site.xml"},
        new String[] {"warmup"}, new String[] {"warmup", "--parallelism", "0", "s3a://bucket/x"}, new String[] {"evict"},
        new String[] {"stats", "--jsn"}, new String[] {"status", "--top", "-1"})) {
      Run run = rubix(args);
      assertThat(run.exitCode()).as("exit code of %s", List.of(args)).isEqualTo(2);
      assertThat(run.err()).as("stderr of %s", List.of(args)).contains("Usage: rubix");
      assertThat(run.out()).as("stdout of %s", List.of(args)).isEmpty();
    }
    Run help = rubix("help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("Usage: rubix", "status", "warmup", "evict", "clear", "stats");
  }

  @Test
  void unreachableDaemonAndMissingFilesExitWithOne() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    for (String command : List.of("status", "stats", "clear", "evict")) {
      List<String> args = new ArrayList<>(List.of(command, "--conf", conf.toString(), "--port", Integer.toString(closedPort)));
      if (command.equals("evict")) {
        args.add("s3a://bucket/x");
      }
      Run run = rubix(args.toArray(String[]::new));
      assertThat(run.exitCode()).as(command).isEqualTo(1);
      assertThat(run.err()).as(command).contains("BookKeeper at 127.0.0.1:" + closedPort + " is not reachable").doesNotContain("Usage:");
    }

    Run missing = rubix(daemon("warmup", "--no-progress", "s3a://bucket/missing/*.orc"));
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).contains("s3a://bucket/missing/*.orc: no such file or directory");
  }
}
