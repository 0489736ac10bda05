package io.rubix.bookkeeper;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A BookKeeper daemon ({@link BookKeeperMain}) in its own JVM, for tests that kill it: started with
 * {@code -D} settings (cache directory, ports 0 unless given), its ports learnt from the
 * {@code RUBIX_BOOKKEEPER_STARTED} line on its stdout.
 */
final class BookKeeperProcess implements AutoCloseable {
  private static final Pattern STARTED = Pattern.compile("RUBIX_BOOKKEEPER_STARTED port=(\\d+) metricsPort=(-?\\d+) transferPort=(-?\\d+)");
  static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final ChildJvm jvm;
  private final int port;
  private final int metricsPort;
  private final int transferPort;
  private final long startNanos;
  private final long startedNanos;

  private BookKeeperProcess(ChildJvm jvm, int port, int metricsPort, int transferPort, long startNanos, long startedNanos) {
    this.jvm = jvm;
    this.port = port;
    this.metricsPort = metricsPort;
    this.transferPort = transferPort;
    this.startNanos = startNanos;
    this.startedNanos = startedNanos;
  }

  /** Starts a daemon caching in {@code cacheDir} on an ephemeral port; {@code settings} add to or override the defaults. */
  static BookKeeperProcess start(Path cacheDir, Map<String, String> settings) throws IOException, InterruptedException {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("rubix.cache.dirs", cacheDir.toString());
    conf.put("rubix.cache.block.size", BookKeeperTestSupport.BLOCK_SIZE);
    conf.put("rubix.network.bookkeeper.server.port", "0");
    conf.put("rubix.bookkeeper.metrics.port", "0");
    conf.put("rubix.network.transfer.server.port", "0");
    conf.put("rubix.cluster.node.id", "test-node");
    conf.putAll(settings);
    List<String> args = new ArrayList<>();
    conf.forEach((key, value) -> args.add("-D" + key + "=" + value));
    long startNanos = System.nanoTime();
    ChildJvm jvm = ChildJvm.start("bookkeeper", BookKeeperMain.class, List.of("-Xmx384m"), args);
    try {
      Matcher started = STARTED.matcher(jvm.awaitLine(line -> STARTED.matcher(line).matches(), START_TIMEOUT));
      started.matches();
      return new BookKeeperProcess(jvm, Integer.parseInt(started.group(1)), Integer.parseInt(started.group(2)), Integer.parseInt(started.group(3)),
          startNanos, System.nanoTime());
    } catch (RuntimeException | Error | InterruptedException e) {
      jvm.close();
      throw e;
    }
  }

  int port() {
    return port;
  }

  int metricsPort() {
    return metricsPort;
  }

  /** The data-transfer port, or -1 when it is off. */
  int transferPort() {
    return transferPort;
  }

  long pid() {
    return jvm.pid();
  }

  boolean isAlive() {
    return jvm.isAlive();
  }

  /** From process start to the STARTED line (JVM startup, journal recovery, binding). */
  Duration startupTime() {
    return Duration.ofNanos(startedNanos - startNanos);
  }

  String diagnostics() {
    return jvm.diagnostics();
  }

  /** kill -9. */
  void kill() throws InterruptedException {
    jvm.kill();
  }

  /** SIGTERM: the shutdown hook closes the BookKeeper. */
  void stop() throws InterruptedException {
    jvm.stop(Duration.ofSeconds(20));
  }

  @Override
  public void close() {
    jvm.close();
  }
}
