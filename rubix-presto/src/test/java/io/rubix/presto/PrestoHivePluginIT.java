package io.rubix.presto;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.presto.testing.PrestoS3ReadMain;
import io.rubix.testing.ChildJvmSupport;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rubix-presto jar among the classes of PrestoDB 0.287's Hive plugin: a child JVM whose classpath is
 * the plugin's {@code plugin/hive-hadoop2/} jars as {@code presto-hive-classpath} resolves them from Maven
 * Central (checked here against the server tarball's list), the SPI jars the server lends every plugin,
 * the shaded jar and {@link PrestoS3ReadMain}. {@code s3a://} is {@code CachingPrestoS3FileSystem} wrapping
 * PrestoDB's own {@code PrestoS3FileSystem} (AWS SDK v1, from the plugin), against the S3 server in a third
 * JVM that counts what it serves: bytes equal the objects', a cold pass reads from S3, a warm pass makes no
 * GET, and a new JVM on the same cache directory makes no GET either.
 *
 * <p>By default the five large plugin jars that reading never loads (and three that only they need) are
 * left out to keep the download small; {@code -Dpresto.hive.full} resolves and uses all 134.
 */
class PrestoHivePluginIT {
  private static final String MODULE = "rubix-presto";
  /** The jars of the plugin directory that the default (CI) set leaves out: 249 MB of the directory's 320 MB. */
  private static final Set<String> LEFT_OUT_BY_DEFAULT = Set.of(
      "alluxio-shaded-client-312.jar", "hudi-presto-bundle-0.14.0.jar", "hive-apache-3.0.0-10.jar", "ranger-apache-2.1.0-3.jar",
      "fastutil-8.5.2.jar", "jna-5.12.1.jar", "kryo-shaded-4.0.2.jar", "minlog-1.3.0.jar");
  private static final String BUCKET = "presto";

  @TempDir
  Path dir;

  @Test
  void resolvedJarsAreThePluginDirectorys() throws IOException {
    Set<String> expected = pluginDirectory();
    if (!"full".equals(System.getProperty("rubix.presto.hive.set"))) {
      assertThat(expected).containsAll(LEFT_OUT_BY_DEFAULT);
      expected.removeAll(LEFT_OUT_BY_DEFAULT);
    }
    assertThat(jarNames(hiveLib())).isEqualTo(expected);
    assertThat(jarNames(Path.of(ChildJvmSupport.requiredProperty("rubix.presto.spi.lib", MODULE))))
        .containsExactlyInAnyOrder("presto-spi-0.287.jar", "presto-common-0.287.jar", "drift-api-1.37.jar", "slice-0.38.jar",
            "units-1.3.jar", "jackson-annotations-2.10.0.jar", "jol-core-0.2.jar");
  }

  @Test
  void readsThroughPrestoS3FileSystem() throws Exception {
    long started = System.nanoTime();
    try (S3ServerProcess server = S3ServerLauncher.start(dir.resolve("logs"), List.of("--bucket", BUCKET, "--dir", dir.resolve("s3").toString()))) {
      List<String> first = child(server, "write", "direct", "cached", "cached");
      Map<String, String> write = pass(first, 1);
      assertThat(write).containsEntry("fs", CachingPrestoS3FileSystem.class.getName())
          .containsEntry("wrapped", CachingPrestoS3FileSystem.PRESTO_S3_FILE_SYSTEM).containsEntry("bytes", String.valueOf(totalBytes()));

      Map<String, String> direct = pass(first, 2);
      assertThat(direct).as("uncached: PrestoS3FileSystem itself").containsEntry("fs", CachingPrestoS3FileSystem.PRESTO_S3_FILE_SYSTEM)
          .containsEntry("mismatches", "0");
      assertThat(count(direct, "gets")).isPositive();
      assertThat(count(direct, "s3bytes")).isGreaterThanOrEqualTo(totalBytes());

      Map<String, String> cold = pass(first, 3);
      assertThat(cold).containsEntry("fs", CachingPrestoS3FileSystem.class.getName())
          .containsEntry("wrapped", CachingPrestoS3FileSystem.PRESTO_S3_FILE_SYSTEM)
          .containsEntry("stream", "io.rubix.core.read.CachingInputStream")
          .containsEntry("mismatches", "0").containsEntry("bytes", direct.get("bytes"));
      assertThat(count(cold, "gets")).as("cold: from S3").isPositive();
      assertThat(count(cold, "s3bytes")).as("cold: each byte from S3 exactly once").isEqualTo(totalBytes());

      Map<String, String> warm = pass(first, 4);
      assertThat(warm).as("warm: nothing from S3").containsEntry("mismatches", "0").containsEntry("bytes", direct.get("bytes"))
          .containsEntry("gets", "0").containsEntry("s3bytes", "0");

      Map<String, String> restarted = pass(child(server, "cached"), 1);
      assertThat(restarted).as("a new JVM on the same cache directory: warm from the journal")
          .containsEntry("stream", "io.rubix.core.read.CachingInputStream")
          .containsEntry("mismatches", "0").containsEntry("bytes", direct.get("bytes")).containsEntry("gets", "0").containsEntry("s3bytes", "0");
      System.err.printf("PrestoDB 0.287 Hive plugin classpath: direct %s, cold %s, warm %s, restarted %s; %d s%n",
          direct, cold, warm, restarted, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    }
  }

  private List<String> child(S3ServerProcess server, String... commands) throws IOException, InterruptedException, URISyntaxException {
    List<Path> classpath = new ArrayList<>();
    classpath.add(Path.of(PrestoS3ReadMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
    Path jar = Path.of(ChildJvmSupport.requiredProperty("rubix.presto.jar", MODULE));
    assertThat(jar).as("the shaded jar (package rubix-presto first)").isRegularFile();
    classpath.add(jar);
    classpath.addAll(jars(hiveLib()));
    classpath.addAll(jars(Path.of(ChildJvmSupport.requiredProperty("rubix.presto.spi.lib", MODULE))));
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
        "-XX:+UseSerialGC", "-cp", String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()),
        PrestoS3ReadMain.class.getName(), server.endpoint(), server.control().uri().toString(), BUCKET, dir.resolve("cache").toString()));
    command.addAll(List.of(commands));
    Path log = dir.resolve("logs").resolve("child-" + System.nanoTime() + ".log");
    Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    List<String> output;
    try (InputStream out = process.getInputStream()) {
      output = new String(out.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
    boolean exited = process.waitFor(3, TimeUnit.MINUTES);
    if (!exited) {
      process.destroyForcibly();
    }
    assertThat(exited && process.exitValue() == 0).as("child JVM exited normally; stdout %s; stderr %s", output, ChildJvmSupport.tail(log)).isTrue();
    return output;
  }

  private static Path hiveLib() {
    return Path.of(ChildJvmSupport.requiredProperty("rubix.presto.hive.lib", MODULE));
  }

  private static long totalBytes() {
    long total = 0;
    for (int size : PrestoS3ReadMain.FILE_SIZES) {
      total += size;
    }
    return total;
  }

  /** The jar names of the server tarball's plugin/hive-hadoop2/ directory. */
  private static Set<String> pluginDirectory() throws IOException {
    try (InputStream in = PrestoHivePluginIT.class.getResourceAsStream("/presto-0.287-plugin-hive-hadoop2.txt")) {
      assertThat(in).as("the plugin directory's list").isNotNull();
      Set<String> names = new TreeSet<>();
      new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(names::add);
      assertThat(names).hasSize(134);
      return names;
    }
  }

  private static List<Path> jars(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
    }
  }

  private static Set<String> jarNames(Path directory) throws IOException {
    Set<String> names = new TreeSet<>();
    jars(directory).forEach(p -> names.add(p.getFileName().toString()));
    return names;
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

  private static long count(Map<String, String> pass, String key) {
    return Long.parseLong(pass.get(key));
  }
}
