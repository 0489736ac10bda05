package io.rubix.presto.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Runs in a child JVM whose classpath is PrestoDB 0.287's Hive plugin (its {@code plugin/hive-hadoop2/}
 * jars and the SPI jars the server lends it), the rubix-presto jar and this class's directory: configures
 * {@code s3a://} as a core-site.xml given to PrestoDB's Hive connector would
 * ({@code fs.s3a.impl=io.rubix.presto.CachingPrestoS3FileSystem}, its wrapped class left at the default
 * {@code com.facebook.presto.hive.s3.PrestoS3FileSystem}, {@code presto.s3.*} pointing at the S3 server)
 * and runs commands, each with a new file system:
 *
 * <ul>
 *   <li>{@code write}: writes {@link #FILE_SIZES} objects of seeded random bytes through the caching file system;
 *   <li>{@code direct}: reads them through a plain {@code PrestoS3FileSystem} ({@code fs.s3a.impl} set to it);
 *   <li>{@code cached}: reads them through {@code CachingPrestoS3FileSystem}.
 * </ul>
 *
 * <p>Reads follow {@link ReadPattern}. The S3 server's counters are reset before each command and read
 * after it; one line per command goes to stdout:
 * {@code pass=<n> command=<c> files=<n> bytes=<n> mismatches=<n> gets=<n> heads=<n> s3bytes=<n> fs=<class> wrapped=<class> stream=<class>}.
 *
 * <p>Arguments: S3 endpoint, the server's control endpoint, bucket, cache directory, commands.
 */
public final class PrestoS3ReadMain {
  /** Sizes of the objects written and read: several blocks, one block, a partial block, one byte, empty. */
  public static final int[] FILE_SIZES = {3_000_000, 1_048_577, 65_536, 1, 0};

  private static final String CACHING = "io.rubix.presto.CachingPrestoS3FileSystem";
  private static final String PRESTO_S3 = "com.facebook.presto.hive.s3.PrestoS3FileSystem";

  private PrestoS3ReadMain() {}

  public static void main(String[] args) throws Exception {
    String endpoint = args[0];
    URI control = URI.create(args[1]);
    String bucket = args[2];
    String cache = args[3];
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    HttpClient http = HttpClient.newHttpClient();
    for (int i = 4; i < args.length; i++) {
      String command = args[i];
      Configuration conf = configuration(endpoint, cache, command.equals("direct") ? PRESTO_S3 : CACHING);
      call(http, control, "POST", "/reset");
      String line;
      try (FileSystem fs = FileSystem.get(URI.create("s3a://" + bucket + "/"), conf)) {
        line = switch (command) {
          case "write" -> write(fs, bucket);
          case "direct", "cached" -> read(fs, bucket);
          default -> throw new IllegalArgumentException("unknown command " + command + "; allowed: write, direct, cached");
        };
        line += " fs=" + fs.getClass().getName()
            + " wrapped=" + (fs instanceof FilterFileSystem filter ? filter.getRawFileSystem().getClass().getName() : "-");
      }
      Map<String, String> counters = counters(call(http, control, "GET", "/counters"));
      out.println("pass=" + (i - 3) + " command=" + command + " " + line + " gets=" + counters.get("gets") + " heads=" + counters.get("heads")
          + " s3bytes=" + counters.get("bytes"));
    }
    // an in-process BookKeeper's threads would not keep the JVM alive, PrestoS3FileSystem's may
    System.exit(0);
  }

  /** What a core-site.xml named by {@code hive.config.resources} would hold for this server. */
  private static Configuration configuration(String endpoint, String cache, String s3aImpl) {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.impl", s3aImpl);
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set("rubix.cache.dirs", cache);
    conf.set("presto.s3.endpoint", endpoint);
    conf.set("presto.s3.access-key", "rubix-access");
    conf.set("presto.s3.secret-key", "rubix-secret");
    conf.setBoolean("presto.s3.path-style-access", true);
    conf.setBoolean("presto.s3.ssl.enabled", false);
    conf.set("presto.s3.staging-directory", cache + "-staging");
    conf.setInt("presto.s3.max-client-retries", 1);
    conf.setInt("presto.s3.max-error-retries", 1);
    return conf;
  }

  private static String write(FileSystem fs, String bucket) throws IOException {
    long bytes = 0;
    for (int i = 0; i < FILE_SIZES.length; i++) {
      byte[] data = contents(i);
      try (OutputStream out = fs.create(path(bucket, i))) {
        out.write(data);
      }
      bytes += data.length;
    }
    return "files=" + FILE_SIZES.length + " bytes=" + bytes + " mismatches=0 stream=-";
  }

  private static String read(FileSystem fs, String bucket) throws IOException {
    long bytes = 0;
    int mismatches = 0;
    String stream = "";
    for (int i = 0; i < FILE_SIZES.length; i++) {
      byte[] expected = contents(i);
      Path path = path(bucket, i);
      mismatches += fs.getFileStatus(path).getLen() == expected.length ? 0 : 1;
      try (FSDataInputStream in = fs.open(path)) {
        stream = in.getWrappedStream().getClass().getName();
        ReadPattern.Result result = ReadPattern.check(in, expected, i);
        bytes += result.bytes();
        mismatches += result.mismatches();
      }
    }
    return "files=" + FILE_SIZES.length + " bytes=" + bytes + " mismatches=" + mismatches + " stream=" + stream;
  }

  private static Path path(String bucket, int i) {
    return new Path("s3a://" + bucket + "/data/file-" + i + ".bin");
  }

  /** Object {@code i}'s bytes: {@link #FILE_SIZES}[i] bytes from a generator seeded with {@code i}. */
  public static byte[] contents(int i) {
    byte[] data = new byte[FILE_SIZES[i]];
    new Random(1000 + i).nextBytes(data);
    return data;
  }

  private static String call(HttpClient http, URI control, String method, String path) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(control.resolve(path)).method(method, HttpRequest.BodyPublishers.noBody()).build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    if (response.statusCode() != 200) {
      throw new IOException(method + " " + path + " at the S3 server's control endpoint answered " + response.statusCode());
    }
    return response.body();
  }

  /** {@code gets=N heads=N lists=N bytes=N}, one per line, as a map. */
  private static Map<String, String> counters(String body) {
    Map<String, String> counters = new HashMap<>();
    for (String line : body.split("\\s+")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        counters.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return counters;
  }
}
