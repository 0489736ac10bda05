package io.rubix.testing;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link S3ServerMain} as a child JVM and reads its counters over its control endpoint. The
 * child's classpath is given by the caller (the S3Proxy jar-with-dependencies and the rubix-core
 * test-jar), so nothing of S3Proxy needs to be on the caller's own classpath.
 */
public final class S3ServerProcess implements AutoCloseable {
  private final Process process;
  private final String endpoint;
  private final S3ServerControl control;

  private S3ServerProcess(Process process, String endpoint, URI control) {
    this.process = process;
    this.endpoint = endpoint;
    this.control = new S3ServerControl(control);
  }

  /**
   * Starts the server.
   *
   * @param classpath the child JVM's classpath entries
   * @param arguments {@link S3ServerMain}'s options
   * @param log where the child's stderr goes
   */
  public static S3ServerProcess start(List<Path> classpath, List<String> arguments, Path log) throws IOException {
    requireNonNull(classpath, "classpath is null");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
    command.add(S3ServerMain.class.getName());
    command.addAll(arguments);
    Process process = new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
      try {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.startsWith(S3ServerMain.READY)) {
            return line;
          }
        }
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    String line;
    try {
      line = ready.get(120, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IOException("S3 server did not start; see " + log, e);
    }
    if (line == null) {
      process.destroyForcibly();
      throw new IOException("S3 server exited before it was ready; see " + log);
    }
    Map<String, String> fields = new HashMap<>();
    for (String part : line.substring(S3ServerMain.READY.length()).split(" ")) {
      int eq = part.indexOf('=');
      fields.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return new S3ServerProcess(process, fields.get("endpoint"), URI.create(fields.get("control")));
  }

  /** The S3 endpoint, {@code http://127.0.0.1:PORT}. */
  public String endpoint() {
    return endpoint;
  }

  /** The client of the server's control endpoint (its address can be handed to another process). */
  public S3ServerControl control() {
    return control;
  }

  public S3ServerControl.Counters counters() throws IOException {
    return control.counters();
  }

  /** The requests since the last reset per object ({@link S3ServerControl#requests()}). */
  public Map<String, Long> requests() throws IOException {
    return control.requests();
  }

  /** Zeroes the counters and returns what they were. */
  public S3ServerControl.Counters reset() throws IOException {
    return control.reset();
  }

  /** Sets the first-byte latency of every GET and the bandwidth of each (0: unlimited); HEADs and LISTs get no latency. */
  public void settings(long latencyMs, long bytesPerSecond) throws IOException {
    control.settings(latencyMs, 0, bytesPerSecond);
  }

  public void createBucket(String bucket) throws IOException {
    control.createBucket(bucket);
  }

  /** Hadoop settings for S3A against this server, as {@code key -> value}. */
  public Map<String, String> s3aSettings() {
    Map<String, String> conf = new java.util.LinkedHashMap<>();
    conf.put("fs.s3a.endpoint", endpoint);
    conf.put("fs.s3a.endpoint.region", "us-east-1");
    conf.put("fs.s3a.access.key", S3Server.ACCESS_KEY);
    conf.put("fs.s3a.secret.key", S3Server.SECRET_KEY);
    conf.put("fs.s3a.path.style.access", "true");
    conf.put("fs.s3a.connection.ssl.enabled", "false");
    conf.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.put("fs.s3a.change.detection.version.required", "false");
    conf.put("fs.s3a.attempts.maximum", "2");
    conf.put("fs.s3a.retry.limit", "2");
    return conf;
  }

  @Override
  public void close() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
