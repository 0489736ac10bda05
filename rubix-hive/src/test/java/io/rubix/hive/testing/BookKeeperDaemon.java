package io.rubix.hive.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The BookKeeper daemon of the packaged distribution ({@code rubix-bookkeeper/target/rubix-<version>}),
 * started as an operator would: {@code bin/rubix-bookkeeper} with {@code RUBIX_CONF_DIR} holding a
 * rubix-site.xml. Its Thrift port is picked by the daemon and read from the line it prints when it
 * listens. Closing sends SIGTERM.
 */
public final class BookKeeperDaemon implements AutoCloseable {
  private static final Pattern STARTED = Pattern.compile("RUBIX_BOOKKEEPER_STARTED port=(\\d+) .*");

  private final Process process;
  private final int port;

  private BookKeeperDaemon(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Starts the daemon with {@code site} as its rubix-site.xml and waits until it listens. Unless
   * {@code site} sets them, the Thrift port is 0 (the daemon picks one) and the metrics and transfer
   * ports are disabled.
   */
  public static BookKeeperDaemon start(Path distribution, Path dir, Map<String, String> site, Duration timeout) throws IOException {
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Map<String, String> settings = new java.util.LinkedHashMap<>(site);
    settings.putIfAbsent("rubix.network.bookkeeper.server.port", "0");
    settings.putIfAbsent("rubix.bookkeeper.metrics.port", "-1");
    settings.putIfAbsent("rubix.network.transfer.server.port", "-1");
    HadoopConfFile.write(conf.resolve("rubix-site.xml"), settings);
    ProcessBuilder builder = new ProcessBuilder("bash", distribution.resolve("bin/rubix-bookkeeper").toString())
        .redirectError(dir.resolve("daemon.err").toFile());
    builder.environment().putAll(Map.of("RUBIX_CONF_DIR", conf.toString(), "RUBIX_LOG_DIR", dir.resolve("log").toString(),
        "JAVA_HOME", System.getProperty("java.home"), "RUBIX_BOOKKEEPER_OPTS", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"));
    Process process = builder.start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line;
    try {
      line = CompletableFuture.supplyAsync(() -> {
        try {
          return out.readLine();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("Interrupted starting the BookKeeper daemon", e);
    } catch (ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      throw new IOException("BookKeeper daemon did not start within " + timeout + "; see " + dir, e);
    }
    Matcher started = line == null ? null : STARTED.matcher(line);
    if (started == null || !started.matches()) {
      process.destroyForcibly();
      throw new IOException("BookKeeper daemon printed " + line + " instead of its start line; see " + dir.resolve("daemon.err"));
    }
    return new BookKeeperDaemon(process, Integer.parseInt(started.group(1)));
  }

  /** The Thrift port the engines connect to. */
  public int port() {
    return port;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
