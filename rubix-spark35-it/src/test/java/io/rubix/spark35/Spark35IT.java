package io.rubix.spark35;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.testing.ChildJvmSupport;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code rubix-spark} jar on Spark 3.5: a child JVM whose classpath is exactly Spark 3.5's
 * jars with hadoop-aws 3.3.4 (copied by {@code spark35-classpath}), the shaded jar and
 * {@link Spark35Scenario}, with the {@code --add-opens} flags Spark's launcher adds on JDK 17. The S3
 * server runs in a third JVM and counts what it serves.
 */
class Spark35IT {
  private static final String MODULE = "rubix-spark35-it";
  /** Spark 3.5's {@code JavaModuleOptions}: what {@code spark-submit} passes on JDK 17. */
  private static final List<String> SPARK_JAVA_OPTIONS = List.of(
      "-XX:+IgnoreUnrecognizedVMOptions",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false");

  @TempDir
  Path temp;

  @Test
  void embeddedCacheOnSpark35() throws Exception {
    scenario(false);
  }

  @Test
  void pluginOnSpark35() throws Exception {
    scenario(true);
  }

  private void scenario(boolean plugin) throws Exception {
    long started = System.nanoTime();
    try (S3ServerProcess server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", "spark35", "--dir", temp.resolve("s3").toString()))) {
      List<Path> classpath = new ArrayList<>();
      try (Stream<Path> jars = Files.list(Path.of(ChildJvmSupport.requiredProperty("rubix.spark35.lib", MODULE)))) {
        jars.filter(jar -> jar.toString().endsWith(".jar")).sorted().forEach(classpath::add);
      }
      assertThat(classpath).as("Spark 3.5 jars").anySatisfy(jar -> assertThat(jar.getFileName().toString()).startsWith("spark-sql_"));
      Path sparkJar = Path.of(ChildJvmSupport.requiredProperty("rubix.spark.jar", MODULE));
      assertThat(sparkJar).as("the shaded jar (package rubix-spark first)").isRegularFile();
      classpath.add(sparkJar);
      classpath.add(Path.of(Spark35Scenario.class.getProtectionDomain().getCodeSource().getLocation().toURI()));

      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx1g");
      command.add("-XX:+UseSerialGC");
      command.addAll(SPARK_JAVA_OPTIONS);
      // the S3A settings for this server, as the other tests use them: the scenario copies every s3a.* property into spark.hadoop.*
      server.s3aSettings().forEach((key, value) -> command.add("-Ds3a." + key + "=" + value));
      command.add("-cp");
      command.add(String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
      command.add(Spark35Scenario.class.getName());
      command.add(server.endpoint());
      command.add(server.control().uri().toString());
      command.add(temp.resolve("cache").toString());
      command.add(Boolean.toString(plugin));
      command.add(Integer.toString(freePort()));
      command.add(temp.resolve("nodes.txt").toString());
      Path log = temp.resolve("logs").resolve("spark35-" + (plugin ? "plugin" : "embedded") + ".log");
      Process child = new ProcessBuilder(command).redirectError(log.toFile()).start();
      List<String> results = new ArrayList<>();
      String version = null;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          System.err.println(line);
          if (line.startsWith(Spark35Scenario.RESULT)) {
            results.add(line.substring(Spark35Scenario.RESULT.length()));
          } else if (line.startsWith("SPARK35-VERSION ")) {
            version = line.substring("SPARK35-VERSION ".length());
          }
        }
      }
      if (!child.waitFor(60, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
      String tail = ChildJvmSupport.tail(log);
      assertThat(child.exitValue()).as("Spark 3.5 child exit; log %s:%n%s", log, tail).isZero();
      assertThat(version).startsWith("3.5.");
      assertThat(results).as("results; log %s:%n%s", log, tail).hasSize(2);
      for (String result : results) {
        Map<String, String> fields = fields(result);
        assertThat(fields).as(result).containsEntry("nonEmpty", "true").containsEntry("coldEqual", "true").containsEntry("warmEqual", "true");
        long coldBytes = counter(fields.get("cold"), "bytes");
        long warmBytes = counter(fields.get("warm"), "bytes");
        assertThat(coldBytes).as("cold run reads from S3: %s", result).isPositive();
        assertThat(warmBytes).as("bytes served on the warm run: %s", result).isLessThanOrEqualTo(coldBytes / 100);
      }
      System.err.printf("Spark %s (%s): %d s%n", version, plugin ? "plugin" : "embedded", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    }
  }

  private static Map<String, String> fields(String line) {
    Map<String, String> fields = new HashMap<>();
    for (String part : line.split(" ")) {
      int eq = part.indexOf('=');
      fields.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return fields;
  }

  private static long counter(String counters, String name) {
    for (String part : counters.split(",")) {
      if (part.startsWith(name + "=")) {
        return Long.parseLong(part.substring(name.length() + 1));
      }
    }
    throw new AssertionError("no " + name + " in " + counters);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
