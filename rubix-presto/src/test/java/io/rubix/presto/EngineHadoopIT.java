package io.rubix.presto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rubix.presto.testing.EngineReadMain;
import io.rubix.presto.testing.JavaHomes;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rubix-presto jar on the Hadoop that the engines bundle, each in a child JVM whose classpath is
 * that Hadoop, SLF4J, the jar and {@link EngineReadMain}: PrestoDB 0.287's Hadoop 2.7.4
 * ({@code com.facebook.presto.hadoop:hadoop-apache2}) and Trino 476's Hadoop 3.3.5
 * ({@code io.trino.hadoop:hadoop-apache}, compiled for Java 21, so run on a JDK 21+ when there is
 * one). Files are read through the engine's caching class wrapping the local file system: the bytes
 * must equal the files', a cold pass reads each byte from the source once, a warm pass and a new JVM
 * on the same cache directory read nothing from it.
 *
 * <p>Neither Hadoop has an S3 client (no S3A; the engines use their own S3 file systems, which
 * this jar wraps by class name), so the source here is the local file system.
 */
class EngineHadoopIT {
  private static final int[] FILE_SIZES = {1_500_000, 300_001, 65_536, 1, 0};

  @TempDir
  Path dir;

  @Test
  void prestoHadoop27() throws Exception {
    Run run = new Run("presto", Path.of(System.getProperty("java.home")), "io.rubix.presto.CachingPrestoS3FileSystem");
    List<String> first = run.child(2);
    assertThat(first).contains("hadoop=2.7.4");
    assertColdThenWarm(first, "io.rubix.core.read.CachingInputStream");
    assertThat(pass(first, 1)).as("Hadoop 2.7 has no openFile()").containsEntry("openFile", "absent");
    assertWarmAfterRestart(run.child(1), "io.rubix.core.read.CachingInputStream");
    assertThat(value(first, "default")).contains("rubix.fs.s3.wrapped.impl").contains("com.facebook.presto.hive.s3.PrestoS3FileSystem");
  }

  @Test
  void trinoHadoop335() throws Exception {
    Path javaHome = JavaHomes.atLeast(21).orElse(null);
    assumeTrue(javaHome != null, "Trino's Hadoop jar needs Java 21+; no such JDK found (set -Drubix.test.java21.home)");
    Run run = new Run("trino", javaHome, "io.rubix.presto.CachingTrinoS3FileSystem");
    List<String> first = run.child(2);
    assertThat(first).contains("hadoop=3.3.5");
    assertColdThenWarm(first, "io.rubix.core.read.Hadoop3CachingInputStream");
    assertThat(pass(first, 1)).as("openFile() through the cache").containsEntry("openFile", "ok");
    assertThat(pass(first, 2)).containsEntry("openFile", "ok");
    assertWarmAfterRestart(run.child(1), "io.rubix.core.read.Hadoop3CachingInputStream");
    assertThat(value(first, "default")).contains("rubix.fs.s3.wrapped.impl").contains("io.trino.hdfs.s3.TrinoS3FileSystem");
  }

  /**
   * {@code rubix.bookkeeper.embedded=true} on PrestoDB's Hadoop: the first file system starts one
   * BookKeeper in the JVM (metadata, journal, data-transfer port), later ones use it, and a new JVM
   * is warm from that BookKeeper's journal.
   */
  @Test
  void prestoHadoop27WithBookKeeperInProcess() throws Exception {
    Run run = new Run("presto", Path.of(System.getProperty("java.home")), "io.rubix.presto.CachingPrestoS3FileSystem", "bookkeeper");
    List<String> first = run.child(2);
    assertColdThenWarm(first, "io.rubix.core.read.CachingInputStream");
    for (int pass = 1; pass <= 2; pass++) {
      Map<String, String> state = pass(first, pass);
      assertThat(state).containsEntry("service", "io.rubix.core.client.BookKeeperClient").containsEntry("bookkeepers", "1");
      assertThat(Integer.parseInt(state.get("transferPort"))).as("data-transfer port for peers").isPositive();
    }
    assertThat(pass(first, 1)).containsEntry("recoveredBlocks", "0");
    List<String> restarted = run.child(1);
    assertWarmAfterRestart(restarted, "io.rubix.core.read.CachingInputStream");
    assertThat(Long.parseLong(pass(restarted, 1).get("recoveredBlocks"))).as("blocks recovered from the journal").isPositive();
  }

  private static long totalBytes() {
    long total = 0;
    for (int size : FILE_SIZES) {
      total += size;
    }
    return total;
  }

  private static void assertColdThenWarm(List<String> output, String streamClass) {
    Map<String, String> cold = pass(output, 1);
    assertThat(cold).containsEntry("files", String.valueOf(FILE_SIZES.length)).containsEntry("mismatches", "0")
        .containsEntry("stream", streamClass);
    assertThat(Long.parseLong(cold.get("bytes"))).isGreaterThan(totalBytes());
    assertThat(cold).as("cold: every byte from the source exactly once").containsEntry("sourceBytes", String.valueOf(totalBytes()));
    Map<String, String> warm = pass(output, 2);
    assertThat(warm).containsEntry("mismatches", "0").containsEntry("bytes", cold.get("bytes"))
        .containsEntry("sourceOpens", "0").containsEntry("sourceBytes", "0");
  }

  private static void assertWarmAfterRestart(List<String> output, String streamClass) {
    Map<String, String> restarted = pass(output, 1);
    assertThat(restarted).as("a new JVM on the same cache directory: warm from the journal")
        .containsEntry("mismatches", "0").containsEntry("sourceOpens", "0").containsEntry("sourceBytes", "0")
        .containsEntry("stream", streamClass);
  }

  private static Map<String, String> pass(List<String> output, int pass) {
    String line = output.stream().filter(l -> l.startsWith("pass=" + pass + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no pass " + pass + " in " + output));
    Map<String, String> values = new HashMap<>();
    for (String field : line.split(" ")) {
      int eq = field.indexOf('=');
      values.put(field.substring(0, eq), field.substring(eq + 1));
    }
    return values;
  }

  private static String value(List<String> output, String key) {
    return output.stream().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + key + " in " + output));
  }

  /** One engine's child JVMs, sharing a data and a cache directory. */
  private final class Run {
    private final String engine;
    private final Path javaHome;
    private final String cachingClass;
    private final Path data;
    private final Path cache;
    private final List<String> options;
    private int runs;

    Run(String engine, Path javaHome, String cachingClass, String... options) throws IOException {
      this.engine = engine;
      this.options = List.of(options);
      this.javaHome = javaHome;
      this.cachingClass = cachingClass;
      this.data = Files.createDirectories(dir.resolve("data"));
      this.cache = Files.createDirectories(dir.resolve("cache"));
      Random random = new Random(42);
      for (int i = 0; i < FILE_SIZES.length; i++) {
        byte[] bytes = new byte[FILE_SIZES[i]];
        random.nextBytes(bytes);
        Files.write(data.resolve("file-" + i + ".bin"), bytes);
      }
    }

    List<String> child(int passes) throws IOException, InterruptedException, URISyntaxException {
      List<Path> classpath = new ArrayList<>();
      classpath.add(Path.of(EngineReadMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
      classpath.add(Path.of(System.getProperty("rubix.presto.jar")));
      try (Stream<Path> jars = Files.list(Path.of(System.getProperty("rubix.engine.hadoop.lib"), engine))) {
        jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(classpath::add);
      }
      Path log = dir.resolve(engine + "-" + (++runs) + ".log");
      List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-Xmx512m", "-XX:+UseSerialGC",
          "-cp", String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()),
          EngineReadMain.class.getName(), data.toString(), cache.toString(), String.valueOf(passes), cachingClass));
      command.addAll(options);
      Process process = new ProcessBuilder(command)
          .redirectError(log.toFile())
          .start();
      List<String> output;
      try (var out = process.getInputStream()) {
        output = new String(out.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      }
      boolean exited = process.waitFor(3, TimeUnit.MINUTES);
      if (!exited) {
        process.destroyForcibly();
      }
      assertThat(exited && process.exitValue() == 0).as("%s child JVM exited normally; stdout %s; stderr %s", engine, output,
          Files.readString(log)).isTrue();
      return output;
    }
  }
}
