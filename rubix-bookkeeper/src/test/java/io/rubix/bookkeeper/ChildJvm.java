package io.rubix.bookkeeper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A {@code java} child process running a main class of this module's test classpath. Its stdout is
 * drained by a thread into a line queue (for {@link #awaitLine}) and into {@code target/child-jvms/<name>.out};
 * its stderr (the logs) goes straight to {@code <name>.err}. Closing kills it (kill -9).
 */
final class ChildJvm implements AutoCloseable {
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final String EOF = "\u0000EOF";
  /** Children still running when this JVM exits (a timed-out or crashed test run) are killed with it. */
  private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "kill-child-jvms"));
  }

  private final String name;
  private final Process process;
  private final Path logDir;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();
  private final Thread drainer;

  private ChildJvm(String name, Process process, Path logDir, Path out) {
    this.name = name;
    this.process = process;
    this.logDir = logDir;
    this.drainer = new Thread(() -> drain(out), "drain-" + name);
    drainer.setDaemon(true);
    drainer.start();
  }

  /** Starts {@code mainClass} with {@code args} in a new JVM on this JVM's classpath; logs under target/child-jvms. */
  static ChildJvm start(String name, Class<?> mainClass, List<String> jvmOptions, List<String> args) throws IOException {
    String unique = name + "-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
    Path logDir = Path.of(System.getProperty("basedir", ".")).resolve("target").resolve("child-jvms");
    Files.createDirectories(logDir);
    List<String> command = new ArrayList<>();
    command.add(javaCommand());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    // startup speed over peak speed: these JVMs live for seconds on a small machine
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xss512k");
    command.addAll(jvmOptions);
    command.add(mainClass.getName());
    command.addAll(args);
    Files.writeString(logDir.resolve(unique + ".cmd"), String.join(" ", command) + "\n");
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectError(logDir.resolve(unique + ".err").toFile())
        .redirectOutput(ProcessBuilder.Redirect.PIPE)
        .redirectInput(ProcessBuilder.Redirect.PIPE);
    Process process = builder.start();
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
    return new ChildJvm(unique, process, logDir, logDir.resolve(unique + ".out"));
  }

  private static String javaCommand() {
    return ProcessHandle.current().info().command()
        .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private void drain(Path out) {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer log = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        log.write(line);
        log.write('\n');
        log.flush();
        lines.add(line);
      }
    } catch (IOException e) {
      // the process died or was killed: end of output
    } finally {
      lines.add(EOF);
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** The first line not returned before that matches {@code predicate}; fails when the process ends or the deadline passes. */
  String awaitLine(Predicate<String> predicate, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new AssertionError("No matching line from " + name + " within " + timeout + "; saw " + seen + diagnostics());
      }
      String line = lines.poll(remaining, TimeUnit.NANOSECONDS);
      if (line == null) {
        continue;
      }
      if (line.equals(EOF)) {
        lines.add(EOF);
        throw new AssertionError("Process " + name + " ended (exit " + exitCodeIfDone() + ") before a matching line; saw " + seen + diagnostics());
      }
      seen.add(line);
      if (predicate.test(line)) {
        return line;
      }
    }
  }

  /** Writes one line to the process's stdin. */
  void send(String line) {
    try {
      OutputStream in = process.getOutputStream();
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write to " + name, e);
    }
  }

  /** Waits for a normal exit and returns its code. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("Process " + name + " did not exit within " + timeout + diagnostics());
    }
    return process.exitValue();
  }

  /** SIGTERM, waiting up to {@code timeout} for it to end (shutdown hooks run). */
  void stop(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
    }
  }

  /** SIGKILL (kill -9): no shutdown hook, no flush; waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("Process " + name + " survived kill -9 for 30 s");
    }
  }

  private String exitCodeIfDone() {
    return process.isAlive() ? "none yet" : Integer.toString(process.exitValue());
  }

  String diagnostics() {
    Path err = logDir.resolve(name + ".err");
    try {
      List<String> all = Files.readAllLines(err, StandardCharsets.UTF_8);
      return "\n--- last stderr lines of " + name + " (" + err + ") ---\n"
          + String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
    } catch (IOException e) {
      return " (no stderr at " + err + ")";
    }
  }

  @Override
  public void close() {
    try {
      if (process.isAlive()) {
        kill();
      }
      drainer.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
