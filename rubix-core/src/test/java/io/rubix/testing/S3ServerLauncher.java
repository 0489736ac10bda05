package io.rubix.testing;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts the S3 server in its own JVM from the directory that {@value #LIB_PROPERTY} names (the build
 * copies S3Proxy's jar-with-dependencies there) plus the rubix-core test classes that hold
 * {@link S3ServerMain}. For tests whose own classpath cannot host S3Proxy (Spark, Hive).
 */
public final class S3ServerLauncher {
  /** System property naming the directory with S3Proxy's jar-with-dependencies. */
  public static final String LIB_PROPERTY = "rubix.s3server.lib";

  private S3ServerLauncher() {}

  public static S3ServerProcess start(Path logDir, List<String> arguments) throws IOException {
    String lib = System.getProperty(LIB_PROPERTY);
    if (lib == null) {
      throw new IllegalStateException("System property " + LIB_PROPERTY + " is not set (run through Maven, or point it at a directory"
          + " holding s3proxy-jar-with-dependencies.jar)");
    }
    Path s3proxy;
    try (var jars = Files.list(Path.of(lib))) {
      s3proxy = jars.filter(p -> p.getFileName().toString().startsWith("s3proxy")).findFirst()
          .orElseThrow(() -> new IllegalStateException("No s3proxy jar in " + lib));
    }
    Path testing;
    try {
      testing = Path.of(S3ServerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    Files.createDirectories(logDir);
    return S3ServerProcess.start(List.of(s3proxy, testing), arguments, logDir.resolve("s3server.log"));
  }
}
