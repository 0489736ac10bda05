package io.rubix.presto.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/** Finds a JDK of at least a given feature version: this JVM's, {@code -Drubix.test.java21.home}, or one under /usr/lib/jvm. */
public final class JavaHomes {
  private JavaHomes() {}

  public static Optional<Path> atLeast(int feature) throws IOException {
    if (Runtime.version().feature() >= feature) {
      return Optional.of(Path.of(System.getProperty("java.home")));
    }
    String configured = System.getProperty("rubix.test.java21.home");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured));
    }
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return Optional.empty();
    }
    try (Stream<Path> homes = Files.list(jvms)) {
      return homes.filter(home -> Files.isExecutable(home.resolve("bin/java")) && featureOf(home) >= feature)
          .max(Comparator.comparingInt(JavaHomes::featureOf));
    }
  }

  /** The feature version in {@code <home>/release} (JAVA_VERSION="25.0.1"), or 0. */
  private static int featureOf(Path home) {
    try {
      for (String line : Files.readAllLines(home.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=")) {
          String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          return Integer.parseInt(version.split("[.+-]")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
