package io.rubix.benchmarks.tpcds;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * Runs one {@link ConfigurationRun} in a fresh JVM with this JVM's classpath: the module options Spark's
 * launcher gives a JVM, this JVM's heap and {@code -XX} options, and its {@code -Drubix.*} and
 * {@code -Dspark.*} settings. The spec goes to the child's stdin, its stdout lines are copied to {@code out}, its
 * stderr goes to a log file; a child that exits with anything but 0 fails the run with the end of
 * that log.
 */
final class ChildJvm {
  private static final int STDERR_TAIL_LINES = 40;

  private ChildJvm() {}

  static RunResult run(RunSpec spec, Path log, PrintStream out) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ConfigurationRun.class.getName());
    Files.deleteIfExists(Path.of(spec.output()));
    Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    try {
      try (OutputStream stdin = process.getOutputStream()) {
        Json.write(stdin, spec);
      }
      try (BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = stdout.readLine()) != null) {
          out.println(line);
        }
      }
      int exit = process.waitFor();
      if (exit != 0) {
        throw new IOException("The JVM running " + spec.configuration().label() + " exited with " + exit + "; the end of its stderr (" + log
            + "):\n" + tail(log));
      }
      return Json.read(Path.of(spec.output()), RunResult.class);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted waiting for the JVM running " + spec.configuration().label(), e);
    } finally {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  private static List<String> jvmOptions() {
    List<String> options = new ArrayList<>(List.of(JavaModuleOptions.defaultModuleOptionArray()));
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("-Xmx") || argument.startsWith("-Xms") || argument.startsWith("-Xss")
          || (argument.startsWith("-XX:") && !options.contains(argument))) {
        options.add(argument);
      }
    }
    options.addAll(settings());
    return options;
  }

  /**
   * This JVM's {@code -Drubix.*} and {@code -Dspark.*} options, which every configuration's JVM gets: RubiX's settings, and Spark's
   * (a SparkConf starts from the JVM's {@code spark.*} properties; what a configuration sets itself wins).
   */
  static List<String> settings() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(argument -> argument.startsWith("-Drubix.") || argument.startsWith("-Dspark."))
        .toList();
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = List.of(new String(Files.readAllBytes(log), StandardCharsets.UTF_8).split("\n"));
    return String.join("\n", lines.subList(Math.max(0, lines.size() - STDERR_TAIL_LINES), lines.size()));
  }
}
