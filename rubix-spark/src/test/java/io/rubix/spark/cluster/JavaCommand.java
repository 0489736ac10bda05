package io.rubix.spark.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Starting Spark's daemons in JVMs of their own, and waiting for what they log when ready. */
final class JavaCommand {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  private JavaCommand() {}

  static List<String> java(SparkHome home, List<String> jvmOptions, String heap) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + heap);
    command.add("-XX:+UseSerialGC");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(home.dir().resolve("jars") + "/*");
    return command;
  }

  /** Waits until {@code log} has a line containing {@code text}; fails with the log's end if the process exits first. */
  static String awaitLine(Process process, Path log, String text) throws IOException {
    return awaitMatch(process, log, Pattern.compile(Pattern.quote(text))).group();
  }

  /** Waits until a line of {@code log} matches {@code pattern}; fails with the log's end if the process exits first. */
  static Matcher awaitMatch(Process process, Path log, Pattern pattern) throws IOException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(log)) {
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
          Matcher matcher = pattern.matcher(line);
          if (matcher.find()) {
            return matcher;
          }
        }
      }
      if (!process.isAlive()) {
        throw new IOException("Process exited (" + process.exitValue() + ") before logging " + pattern + ":\n" + tail(log));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
    throw new IOException("No line matching " + pattern + " in " + log + " within " + READY_TIMEOUT + ":\n" + tail(log));
  }

  static String tail(Path log) throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.ISO_8859_1) : List.of();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
