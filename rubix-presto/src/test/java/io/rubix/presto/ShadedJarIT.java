package io.rubix.presto;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The jar PrestoDB and Trino users drop in holds RubiX's classes and its own dependencies relocated
 * under {@code io.rubix.shaded}, and nothing else: no unrelocated third-party class, no Hadoop, SLF4J
 * or AWS SDK (the engine provides those).
 */
class ShadedJarIT {
  private static final Pattern UNRELOCATED = Pattern.compile(
      "(?<!io/rubix/shaded/)(org/apache/thrift/|com/github/benmanes/|com/fasterxml/jackson/|com/google/common/|io/prometheus/)");

  private static final Pattern AWS_SDK = Pattern.compile("(com/amazonaws/|software/amazon/)");

  private static Path jar() {
    Path jar = Path.of(System.getProperty("rubix.presto.jar"));
    assertThat(jar).exists();
    return jar;
  }

  @Test
  void everyClassIsRubixOrRelocated() throws IOException {
    Path jar = jar();
    List<String> classes;
    try (JarFile file = new JarFile(jar.toFile())) {
      classes = file.stream().map(JarEntry::getName).filter(name -> name.endsWith(".class")).toList();
    }
    assertThat(classes).contains(
        "io/rubix/presto/CachingPrestoS3FileSystem.class",
        "io/rubix/presto/CachingTrinoS3FileSystem.class",
        "io/rubix/hadoop/CachingFileSystem.class",
        "io/rubix/core/read/Hadoop3CachingInputStream.class",
        "io/rubix/bookkeeper/BookKeeper.class",
        "io/rubix/spi/thrift/BookKeeperService.class");
    assertThat(classes).as("classes outside io/rubix/").allMatch(name -> name.startsWith("io/rubix/"));
    assertThat(classes).anyMatch(name -> name.startsWith("io/rubix/shaded/org/apache/thrift/"));
    assertThat(classes).anyMatch(name -> name.startsWith("io/rubix/shaded/com/github/benmanes/caffeine/"));
    assertThat(classes).contains("io/rubix/shaded/io/prometheus/metrics/expositionformats/ExpositionFormats.class");
    assertThat(classes).as("test classes").noneMatch(name -> name.startsWith("io/rubix/testing/") || name.startsWith("io/rubix/presto/testing/"));
    assertThat(Files.size(jar)).as("jar size").isLessThan(16L << 20);
  }

  @Test
  void rubixClassesReferToRelocatedNames() throws IOException {
    try (JarFile file = new JarFile(jar().toFile())) {
      List<JarEntry> rubix = file.stream().filter(e -> e.getName().endsWith(".class") && !e.getName().startsWith("io/rubix/shaded/")).toList();
      assertThat(rubix).hasSizeGreaterThan(50);
      for (JarEntry entry : rubix) {
        String constants = new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(UNRELOCATED.matcher(constants).find()).as("%s refers to an unrelocated Thrift, Caffeine, Jackson, Guava or Prometheus class", entry.getName())
            .isFalse();
      }
    }
  }

  /**
   * No class of the jar names an AWS SDK class (v1 {@code com.amazonaws}, v2 {@code software.amazon}): the
   * wrapped S3 file system is loaded by name, so PrestoDB's SDK v1 stays inside its plugin and the jar needs
   * no SDK to compile or load (PrestoHivePluginIT runs it next to the plugin's SDK, EngineHadoopIT with none).
   */
  @Test
  void noClassReferencesTheAwsSdk() throws IOException {
    try (JarFile file = new JarFile(jar().toFile())) {
      List<JarEntry> classes = file.stream().filter(e -> e.getName().endsWith(".class")).toList();
      assertThat(classes).hasSizeGreaterThan(50);
      for (JarEntry entry : classes) {
        String constants = new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(AWS_SDK.matcher(constants).find()).as("%s refers to an AWS SDK class", entry.getName()).isFalse();
      }
    }
  }
}
