package io.rubix.hive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The jar a Hive, Tez, MapReduce or Spark-on-YARN user puts on the classpath holds RubiX's classes
 * and RubiX's own dependencies relocated under {@code io.rubix.shaded}, and nothing else: no Hadoop,
 * AWS SDK, SLF4J or Hive class (the engine provides those), and no class, class reference or service
 * entry that names a dependency at its original package, where it would meet the engine's own copy.
 */
class ShadedJarIT {
  /**
   * Packages of our dependencies that must appear only relocated. One exception: prose in an error
   * message of Jackson's SimpleSerializers ("... extend 'com.fasterxml.jackson...StdSerializer'"),
   * which names no class the JVM loads.
   */
  private static final Pattern UNRELOCATED = Pattern.compile(
      "(?<!io/rubix/shaded/)(?<!io\\.rubix\\.shaded\\.)(?<!extend ')\\b(org[/.]apache[/.]thrift|com[/.]github[/.]benmanes|com[/.]fasterxml[/.]jackson|com[/.]google[/.]|org[/.]jspecify|io[/.]prometheus)");
  private static final Pattern MULTI_RELEASE = Pattern.compile("^META-INF/versions/\\d+/");

  private static Path jar() {
    Path jar = Path.of(System.getProperty("rubix.hive.jar"));
    assertThat(jar).exists();
    return jar;
  }

  @Test
  void everyClassIsRubixOrRelocated() throws IOException {
    List<String> classes;
    try (JarFile file = new JarFile(jar().toFile())) {
      classes = file.stream().map(JarEntry::getName).filter(name -> name.endsWith(".class"))
          .map(name -> MULTI_RELEASE.matcher(name).replaceFirst(""))
          .toList();
    }
    assertThat(classes).contains(
        "io/rubix/hadoop/CachingS3AFileSystem.class",
        "io/rubix/hadoop/CachingFileSystem.class",
        "io/rubix/core/client/BookKeeperClient.class",
        "io/rubix/core/cluster/setup/ClusterSetup.class",
        "io/rubix/spi/thrift/BookKeeperService.class");
    assertThat(classes).as("classes outside io/rubix/").allMatch(name -> name.startsWith("io/rubix/"));
    assertThat(classes).anyMatch(name -> name.startsWith("io/rubix/shaded/org/apache/thrift/"));
    assertThat(classes).anyMatch(name -> name.startsWith("io/rubix/shaded/com/github/benmanes/caffeine/"));
    assertThat(classes).as("test classes").noneMatch(name -> name.startsWith("io/rubix/testing/") || name.startsWith("io/rubix/hive/testing/"));
    assertThat(classes).as("Spark plugin classes").noneMatch(name -> name.startsWith("io/rubix/spark/"));
    // on YARN the daemon runs from the distribution on each NodeManager host; tasks only talk to it
    assertThat(classes).as("BookKeeper daemon classes").noneMatch(name -> name.startsWith("io/rubix/bookkeeper/"));
    assertThat(Files.size(jar())).as("jar size").isLessThan(16L << 20);
  }

  @Test
  void noClassRefersToAnUnrelocatedDependency() throws IOException {
    List<String> offenders = new ArrayList<>();
    try (JarFile file = new JarFile(jar().toFile())) {
      for (JarEntry entry : file.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
        String constants = new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.ISO_8859_1);
        Matcher matcher = UNRELOCATED.matcher(constants);
        if (matcher.find()) {
          offenders.add(entry.getName() + " -> " + matcher.group());
        }
      }
    }
    assertThat(offenders).as("classes naming an unrelocated dependency").isEmpty();
  }

  @Test
  void serviceEntriesNameOnlyRubixOrRelocatedClasses() throws IOException {
    List<String> offenders = new ArrayList<>();
    try (JarFile file = new JarFile(jar().toFile())) {
      for (JarEntry entry : file.stream().filter(e -> e.getName().startsWith("META-INF/services/") && !e.isDirectory()).toList()) {
        String service = entry.getName().substring("META-INF/services/".length());
        String body = new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
        for (String line : body.split("\n")) {
          String provider = line.replaceAll("#.*", "").trim();
          if (!provider.isEmpty() && !provider.startsWith("io.rubix.")) {
            offenders.add(service + ": " + provider);
          }
        }
        if (UNRELOCATED.matcher(service).find()) {
          offenders.add(service);
        }
      }
    }
    assertThat(offenders).isEmpty();
  }
}
