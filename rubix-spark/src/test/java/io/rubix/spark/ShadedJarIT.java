package io.rubix.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The jar Spark users add holds RubiX's classes and its own dependencies relocated under
 * {@code io.rubix.shaded}, and nothing else: no unrelocated third-party class, no Hadoop, Spark,
 * SLF4J or AWS SDK (the engine provides those).
 */
class ShadedJarIT {
  private static final Pattern UNRELOCATED = Pattern.compile("(?<!io/rubix/shaded/)(org/apache/thrift/|com/github/benmanes/|com/fasterxml/jackson/|io/prometheus/)");

  @Test
  void everyClassIsRubixOrRelocated() throws IOException {
    Path jar = Path.of(System.getProperty("rubix.spark.jar"));
    assertThat(jar).exists();
    List<String> classes;
    try (JarFile file = new JarFile(jar.toFile())) {
      classes = file.stream().map(JarEntry::getName).filter(name -> name.endsWith(".class")).toList();
    }
    assertThat(classes).contains(
        "io/rubix/spark/RubixPlugin.class",
        "io/rubix/hadoop/CachingS3AFileSystem.class",
        "io/rubix/bookkeeper/BookKeeper.class",
        "io/rubix/spi/thrift/BookKeeperService.class");
    assertThat(classes).as("classes outside io/rubix/").allMatch(name -> name.startsWith("io/rubix/"));
    assertThat(classes).anyMatch(name -> name.startsWith("io/rubix/shaded/org/apache/thrift/"));
    assertThat(classes).anyMatch(name -> name.startsWith("io/rubix/shaded/com/github/benmanes/caffeine/"));
    assertThat(classes).contains("io/rubix/shaded/com/fasterxml/jackson/databind/ObjectMapper.class");
    // the executor's BookKeeper writes /metrics with the Prometheus client, relocated so an engine's own client is not touched
    assertThat(classes).contains("io/rubix/shaded/io/prometheus/metrics/expositionformats/ExpositionFormats.class",
        "io/rubix/shaded/io/prometheus/metrics/model/registry/MultiCollector.class");
    assertThat(classes).as("test classes").noneMatch(name -> name.startsWith("io/rubix/testing/"));
    assertThat(Files.size(jar)).as("jar size").isLessThan(16L << 20);
  }

  @Test
  void relocatedClassesReferToRelocatedNames() throws IOException {
    Path jar = Path.of(System.getProperty("rubix.spark.jar"));
    try (JarFile file = new JarFile(jar.toFile())) {
      for (String name : List.of("io/rubix/core/client/BookKeeperClient.class", "io/rubix/core/CacheEngine.class",
          "io/rubix/bookkeeper/BookKeeper.class", "io/rubix/core/cluster/rest/RestHttp.class",
          "io/rubix/bookkeeper/metrics/MetricsEndpoint.class", "io/rubix/bookkeeper/metrics/DaemonMetrics.class")) {
        JarEntry entry = file.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        String constants = new String(file.getInputStream(entry).readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(UNRELOCATED.matcher(constants).find()).as("%s refers to an unrelocated Thrift, Caffeine, Jackson or Prometheus class", name).isFalse();
      }
    }
  }
}
