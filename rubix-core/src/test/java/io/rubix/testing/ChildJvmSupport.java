package io.rubix.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What the integration tests that run an engine in a child JVM share: the build's paths, and the end of a child's log for a failure message. */
public final class ChildJvmSupport {
  private ChildJvmSupport() {}

  /** The system property {@code name} that Maven sets for {@code module}'s integration tests; fails naming the command when it is not set. */
  public static String requiredProperty(String name, String module) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException("System property " + name + " is not set (run through Maven: ./mvnw verify -pl " + module + " -am)");
    }
    return value;
  }

  /** The last 60 lines of {@code log}. */
  public static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
