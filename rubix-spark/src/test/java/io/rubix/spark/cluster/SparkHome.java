package io.rubix.spark.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A Spark installation made of the jars on this JVM's class path, as Spark's standalone Master and
 * Workers need one: {@code jars/} (Spark, Hadoop, S3A and the AWS SDK, plus the RubiX jar a user drops
 * there), {@code conf/} and a {@code RELEASE} file (without it Spark's launcher looks for a source build).
 * The build's own unshaded RubiX classes and the test libraries stay out: executors see what a user's
 * cluster would.
 */
final class SparkHome {
  private final Path dir;

  private SparkHome(Path dir) {
    this.dir = dir;
  }

  static SparkHome create(Path dir, Path rubixJar) throws IOException {
    Path jars = Files.createDirectories(dir.resolve("jars"));
    Files.createDirectories(dir.resolve("conf"));
    Files.writeString(dir.resolve("RELEASE"), "Spark from the test class path\n", StandardCharsets.UTF_8);
    for (Path jar : engineJars()) {
      Path link = jars.resolve(jar.getFileName());
      if (!Files.exists(link)) {
        Files.createSymbolicLink(link, jar);
      }
    }
    Files.createSymbolicLink(jars.resolve(rubixJar.getFileName()), rubixJar.toAbsolutePath());
    return new SparkHome(dir);
  }

  private static List<Path> engineJars() {
    List<Path> jars = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry).toAbsolutePath();
      String name = path.getFileName().toString();
      if (name.endsWith(".jar") && !testOnly(path.toString())) {
        jars.add(path);
      }
    }
    return jars;
  }

  private static boolean testOnly(String path) {
    return path.contains("/io/rubix/") || path.contains("/rubix-") || path.contains("/org/junit/") || path.contains("/org/assertj/")
        || path.contains("/org/opentest4j/") || path.contains("/org/apiguardian/") || path.contains("/io/trino/tpcds/");
  }

  Path dir() {
    return dir;
  }
}
