package io.rubix.bookkeeper.dist;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.bookkeeper.metrics.Exposition;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the packaged distribution (target/rubix-&lt;version&gt;, built in the package phase) as an operator
 * would: bin/rubix-bookkeeper with a rubix-site.xml, then bin/rubix against it, then SIGTERM.
 */
class DistributionIT {
  private static final Path DIST = Path.of(System.getProperty("dist.dir", "target/dist-not-built"));
  private static final Pattern STARTED = Pattern.compile("RUBIX_BOOKKEEPER_STARTED port=(\\d+) metricsPort=(\\d+) transferPort=(-?\\d+)");

  @TempDir
  Path work;

  @Test
  void daemonStartsLogsToItsFileAndAnswersTheCli() throws Exception {
    assertThat(DIST.resolve("bin/rubix-bookkeeper")).isExecutable();
    assertThat(DIST.resolve("bin/rubix")).isExecutable();
    assertThat(DIST.resolve("systemd/rubix-bookkeeper.service")).content().contains("UMask=0007", "User=rubix");
    assertThat(DIST.resolve("lib")).isDirectoryContaining(p -> p.getFileName().toString().startsWith("rubix-bookkeeper-"));

    Path conf = writeConf();
    Path cache = work.resolve("cache");
    Path logs = work.resolve("log");
    Map<String, String> env = Map.of("RUBIX_CONF_DIR", conf.toString(), "RUBIX_LOG_DIR", logs.toString(),
        "JAVA_HOME", System.getProperty("java.home"), "RUBIX_BOOKKEEPER_OPTS", "-Xmx128m", "RUBIX_CLI_OPTS", "-Xmx128m");

    ProcessBuilder daemonBuilder = new ProcessBuilder("bash", DIST.resolve("bin/rubix-bookkeeper").toString())
        .redirectError(work.resolve("daemon.err").toFile());
    daemonBuilder.environment().putAll(env);
    Process daemon = daemonBuilder.start();
    try {
      String line = firstLine(daemon);
      assertThat(line).as("first line of the daemon; stderr: %s", Files.readString(work.resolve("daemon.err"))).isNotNull().matches(STARTED);
      Matcher started = STARTED.matcher(line);
      assertThat(started.matches()).isTrue();
      String port = started.group(1);

      Run status = run(env, "status", "--port", port);
      assertThat(status.exitCode()).as(status.err()).isZero();
      assertThat(status.out()).contains("BookKeeper dist-node at 127.0.0.1:" + port + ": up", "of 64.0 MiB used");

      Run bad = run(env, "status", "--port");
      assertThat(bad.exitCode()).isEqualTo(2);
      assertThat(bad.err()).contains("Usage: rubix status");

      // the distribution's lib/ holds the Prometheus client the daemon writes /metrics with
      assertThat(Exposition.scrape(Integer.parseInt(started.group(2))).value("rubix_cache_capacity_bytes")).isEqualTo(64 << 20);

      int mode = (Integer) Files.getAttribute(cache.resolve("bookkeeper"), "unix:mode");
      assertThat(mode & 07777).as("cache root mode %s", Integer.toOctalString(mode)).isEqualTo(02770);
      assertThat(logs.resolve("rubix-bookkeeper.log")).content().contains("BookKeeper dist-node listening on 127.0.0.1:" + port);
    } finally {
      daemon.destroy();
      assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).as("daemon stops on SIGTERM").isTrue();
    }
    assertThat(daemon.exitValue()).as("exit code after SIGTERM (SuccessExitStatus in the unit)").isEqualTo(143);
    assertThat(logs.resolve("rubix-bookkeeper.log")).content().contains("Stopping BookKeeper");
  }

  @Test
  void aDaemonLoggingToTheConsoleNeedsNoLogDirectory() throws Exception {
    Path conf = writeConf();
    Path notADirectory = Files.writeString(work.resolve("not-a-directory"), "");
    Map<String, String> env = Map.of("RUBIX_CONF_DIR", conf.toString(), "RUBIX_LOG_DIR", notADirectory.toString(),
        "JAVA_HOME", System.getProperty("java.home"), "RUBIX_BOOKKEEPER_OPTS", "-Xmx128m -Drubix.root.logger=INFO,console");
    ProcessBuilder console = new ProcessBuilder("bash", DIST.resolve("bin/rubix-bookkeeper").toString()).redirectError(work.resolve("console.err").toFile());
    console.environment().putAll(env);
    Process daemon = console.start();
    try {
      assertThat(firstLine(daemon)).as("stderr: %s", Files.readString(work.resolve("console.err"))).matches(STARTED);
    } finally {
      daemon.destroy();
      assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(work.resolve("console.err")).content().contains("BookKeeper dist-node listening on");

    ProcessBuilder toFile = new ProcessBuilder("bash", DIST.resolve("bin/rubix-bookkeeper").toString()).redirectErrorStream(true);
    toFile.environment().putAll(env);
    toFile.environment().put("RUBIX_BOOKKEEPER_OPTS", "-Xmx128m");
    Process refused = toFile.start();
    assertThat(refused.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(refused.exitValue()).isEqualTo(1);
    assertThat(new String(refused.getInputStream().readAllBytes(), UTF_8))
        .contains("cannot write to log directory " + notADirectory, "-Drubix.root.logger=INFO,console");
  }

  /** A configuration directory whose rubix-site.xml caches in {@code work/cache} (64 MiB) on ephemeral ports. */
  private Path writeConf() throws IOException {
    Path conf = Files.createDirectories(work.resolve("conf"));
    Path cache = Files.createDirectories(work.resolve("cache"));
    Files.writeString(conf.resolve("rubix-site.xml"), """
        <configuration>
          <property><name>rubix.cache.dirs</name><value>%s</value></property>
          <property><name>rubix.cache.max.size</name><value>64m</value></property>
          <property><name>rubix.network.bookkeeper.server.port</name><value>0</value></property>
          <property><name>rubix.bookkeeper.metrics.port</name><value>0</value></property>
          <property><name>rubix.network.transfer.server.port</name><value>0</value></property>
          <property><name>rubix.cluster.node.id</name><value>dist-node</value></property>
        </configuration>
        """.formatted(cache), UTF_8);
    return conf;
  }

  /** The daemon's first line on stdout (its started line), waiting up to a minute. */
  private static String firstLine(Process daemon) throws Exception {
    BufferedReader stdout = new BufferedReader(new InputStreamReader(daemon.getInputStream(), UTF_8));
    return CompletableFuture.supplyAsync(() -> {
      try {
        return stdout.readLine();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }).get(60, TimeUnit.SECONDS);
  }

  private record Run(int exitCode, String out, String err) {}

  private Run run(Map<String, String> env, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("bash", DIST.resolve("bin/rubix").toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(work, "cli", ".out");
    Path err = Files.createTempFile(work, "cli", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("rubix %s finishes", List.of(args)).isTrue();
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }
}
