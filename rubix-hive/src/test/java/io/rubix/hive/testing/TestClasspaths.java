package io.rubix.hive.testing;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The class paths the Hive tests start their child JVMs with. */
public final class TestClasspaths {
  private TestClasspaths() {}

  /** This module's test classes (the child processes' main classes). */
  public static Path testClasses() {
    try {
      return Path.of(HiveSessionMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The jars listed in the class-path file that system property {@code property} names (written by a
   * runtime module's build); {@code howToRun} says how to run the test so that it is set.
   */
  public static List<Path> fromFile(String property, String howToRun) throws IOException {
    String file = System.getProperty(property);
    if (file == null) {
      throw new IllegalStateException("System property " + property + " is not set (" + howToRun + ")");
    }
    return Arrays.stream(Files.readString(Path.of(file)).trim().split(File.pathSeparator)).map(Path::of).toList();
  }
}
