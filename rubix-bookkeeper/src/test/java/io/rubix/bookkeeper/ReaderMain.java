package io.rubix.bookkeeper;

import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A reading JVM for multi-process tests: {@code ReaderMain [-Dkey=value]... [--await-go] s3a://bucket/object}.
 * Opens a {@link CachingS3AFileSystem} with the settings, prints {@code READY}, waits for a {@code GO}
 * line on stdin when asked to (so several readers start their reads together), reads the object
 * sequentially, closes the file system (its cache writes are then committed), and prints
 * {@code RESULT sha256=<hex> bytes=<n>} followed by {@code counter=value} for every {@link CacheCounter}.
 */
public final class ReaderMain {
  private ReaderMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    boolean awaitGo = false;
    String object = null;
    for (String arg : args) {
      if (arg.startsWith("-D") && arg.contains("=")) {
        conf.set(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      } else if (arg.equals("--await-go")) {
        awaitGo = true;
      } else {
        object = arg;
      }
    }
    if (object == null) {
      System.err.println("Usage: ReaderMain [-Dkey=value]... [--await-go] s3a://bucket/object");
      System.exit(2);
    }
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    long total = 0;
    CacheStats stats;
    FileSystem fs = FileSystem.newInstance(URI.create(object), conf);
    try {
      if (!(fs instanceof CachingS3AFileSystem caching) || caching.cacheEngine() == null) {
        throw new IllegalStateException("Not a caching S3A file system: " + fs.getClass().getName());
      }
      stats = caching.cacheEngine().stats();
      System.out.println("READY");
      System.out.flush();
      if (awaitGo) {
        String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (!"GO".equals(line)) {
          throw new IllegalStateException("Expected GO on stdin, got " + line);
        }
      }
      byte[] buffer = new byte[256 * 1024];
      try (FSDataInputStream in = fs.open(new Path(object))) {
        int n;
        while ((n = in.read(buffer, 0, buffer.length)) > 0) {
          sha.update(buffer, 0, n);
          total += n;
        }
      }
    } finally {
      fs.close();
    }
    StringBuilder result = new StringBuilder("RESULT sha256=").append(HexFormat.of().formatHex(sha.digest())).append(" bytes=").append(total);
    for (CacheCounter counter : CacheCounter.values()) {
      result.append(' ').append(counter.name()).append('=').append(stats.get(counter));
    }
    System.out.println(result);
    System.out.flush();
  }
}
