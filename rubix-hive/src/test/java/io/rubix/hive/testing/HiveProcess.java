package io.rubix.hive.testing;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * HiveServer2 embedded in a child JVM ({@link HiveSessionMain}) with a Hive installation's classpath,
 * so that Hive's libraries never meet the test's own. Statements go one per line over the child's
 * stdin; its answers come back on stdout; Hive's logs and stderr go to a file.
 */
public final class HiveProcess implements AutoCloseable {
  /** What Hive 4 on Java 17 needs opened (Kryo plan serialization, Hadoop, DataNucleus, Arrow). */
  private static final List<String> JAVA_OPTIONS = List.of(
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/java.util.regex=ALL-UNNAMED",
      "--add-opens=java.base/java.time=ALL-UNNAMED",
      "--add-opens=java.base/java.text=ALL-UNNAMED",
      "--add-opens=java.base/java.math=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "--add-opens=java.sql/java.sql=ALL-UNNAMED");
  private static final String EOF = "\u0000EOF";

  private final Process process;
  private final Writer input;
  private final BlockingQueue<String> output = new LinkedBlockingQueue<>();
  private final Path log;
  private final Duration statementTimeout;

  /** The {@code --add-opens} options Hive needs on Java 17 (also what its Tez containers need). */
  public static List<String> javaOptions() {
    return JAVA_OPTIONS;
  }

  private HiveProcess(Process process, Path log, Duration statementTimeout) {
    this.process = process;
    this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.log = log;
    this.statementTimeout = statementTimeout;
    Thread reader = new Thread(this::pump, "hive-process-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts the child and waits until its session is open.
   *
   * @param confDir what a Hive installation's conf directory holds: hive-site.xml, core-site.xml and
   *     log4j2.properties (first on the child's classpath)
   * @param jars the rest of the child's classpath
   * @param log where the child's stderr and Hive's logs go
   * @param statementTimeout how long the start and each statement may take
   */
  public static HiveProcess start(Path confDir, List<Path> jars, Path log, Duration statementTimeout) throws IOException {
    requireNonNull(confDir, "confDir is null");
    requireNonNull(jars, "jars is null");
    List<Path> classpath = new ArrayList<>();
    classpath.add(confDir);
    classpath.addAll(jars);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx768m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dlog4j.configurationFile=" + confDir.resolve("log4j2.properties"));
    command.addAll(JAVA_OPTIONS);
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
    command.add(HiveSessionMain.class.getName());
    // Derby and Hive drop files (derby.log, ...) in the working directory: the conf directory's parent
    Process process = new ProcessBuilder(command)
        .directory(confDir.toAbsolutePath().getParent().toFile())
        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    HiveProcess hive = new HiveProcess(process, log, statementTimeout);
    try {
      hive.await(HiveSessionMain.READY, "start");
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
    return hive;
  }

  /** Runs one statement; returns its rows, columns separated by tabs. */
  public List<String> execute(String sql) throws IOException {
    send(sql.replace('\n', ' '));
    return await(HiveSessionMain.DONE, sql);
  }

  /** Drops the child's cached Hadoop file systems: the next query creates them with the session's settings. */
  public void closeFileSystems() throws IOException {
    send(HiveSessionMain.CLOSE_ALL);
    await(HiveSessionMain.DONE, HiveSessionMain.CLOSE_ALL);
  }

  /**
   * For each file of {@code directory}: its path, a tab, and the hosts the child's file system reports
   * for its first split (comma-separated), as Hive's split generation sees them.
   */
  public List<String> locations(String directory) throws IOException {
    send(HiveSessionMain.LOCATIONS + directory);
    return await(HiveSessionMain.DONE, HiveSessionMain.LOCATIONS + directory);
  }

  private void send(String line) throws IOException {
    input.write(line);
    input.write('\n');
    input.flush();
  }

  private List<String> await(String marker, String what) throws IOException {
    long deadline = System.nanoTime() + statementTimeout.toNanos();
    List<String> rows = new ArrayList<>();
    while (true) {
      String line;
      try {
        line = output.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted waiting for Hive: " + what, e);
      }
      if (line == null) {
        throw new IOException("Hive did not answer within " + statementTimeout + ": " + what + "; see " + log);
      }
      if (line.equals(EOF)) {
        throw new IOException("Hive exited during: " + what + "; see " + log);
      }
      if (line.equals(marker)) {
        return rows;
      }
      if (line.startsWith(HiveSessionMain.FAILED)) {
        throw new IOException("Hive failed: " + what + ": " + line.substring(HiveSessionMain.FAILED.length()) + "; see " + log);
      }
      rows.add(line);
    }
  }

  private void pump() {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        output.add(line);
      }
    } catch (IOException e) {
      // the child is gone; EOF below tells the waiting caller
    } finally {
      output.add(EOF);
    }
  }

  @Override
  public void close() {
    try {
      input.close();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
