package io.rubix.benchmarks;

import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Bytes the cache declines, read as plain S3A would read them: one stream reads a {@value #OBJECT_MIB}
 * MiB object front to back with {@code read(byte[])} calls of {@code bufferSize} bytes, from the
 * in-process S3 server that waits {@code -Drubix.bench.latency.ms} (default 20) before each GET's first
 * byte and, with {@code -Drubix.bench.bandwidth.mbps}, limits each GET to that rate.
 *
 * <p>Readers: {@code s3a-classic} (plain S3A, the user's alternative: one GET); {@code rubix-excluded} (a
 * path rule excludes the object: S3A's own stream); {@code rubix-quota} (the object's rule has a quota
 * smaller than one block: every grant is refused, as when a quota is spent); {@code rubix-metadata-down}
 * (the reader is set to use a BookKeeper daemon on a port nothing listens on). The declined readers read
 * through the cache's source path; each invocation has a new file system and an empty cache directory.
 * After each trial the benchmark prints the GETs per read the server saw.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3)
@Measurement(iterations = 10)
public class DeclinedReadBenchmark {
  static final int OBJECT_MIB = 16;
  private static final String BUCKET = "bench";
  private static final org.apache.hadoop.fs.Path OBJECT = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/data/object.bin");

  @Param({"s3a-classic", "rubix-excluded", "rubix-quota", "rubix-metadata-down"})
  public String reader;

  @Param({"65536"})
  public int bufferSize;

  private S3Server server;
  private Path dir;
  private long length;
  private byte[] buffer;
  private int invocation;
  private Path cacheDir;
  private FileSystem fs;
  private long gets;
  private long invocations;
  private int closedPort;

  @Setup(Level.Trial)
  public void startServer() throws Exception {
    dir = BenchFiles.newScratchDir("rubix-declined-");
    server = S3Server.inMemory();
    server.createBucket(BUCKET);
    length = (long) OBJECT_MIB << 20;
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.input.stream.type", "classic");
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
        FSDataOutputStream out = writer.create(OBJECT)) {
      for (long at = 0; at < length; at += 1 << 20) {
        out.write(BenchFiles.randomBytes(1 << 20, at));
      }
    }
    server.store().setFirstByteLatency(Duration.ofMillis(Long.getLong("rubix.bench.latency.ms", 20)));
    server.store().setBandwidth(Long.getLong("rubix.bench.bandwidth.mbps", 0) * 1_000_000);
    buffer = new byte[bufferSize];
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
  }

  @Setup(Level.Invocation)
  public void openFileSystem() throws IOException {
    cacheDir = dir.resolve("cache-" + invocation++);
    Configuration conf = server.s3aConfiguration();
    conf.set("hadoop.tmp.dir", dir.resolve("hadoop-tmp").toString());
    conf.set("fs.s3a.buffer.dir", dir.resolve("s3a-buffer").toString());
    conf.set("fs.s3a.input.stream.type", "classic");
    if (!reader.equals("s3a-classic")) {
      conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
      conf.set("rubix.cache.dirs", cacheDir.toString());
      conf.set("rubix.cache.jmx.enabled", "false");
      // -Drubix.cache.<key>=<value> on the JMH command line (-jvmArgsAppend) overrides cache settings
      System.getProperties().stringPropertyNames().stream()
          .filter(key -> key.startsWith("rubix.cache."))
          .forEach(key -> conf.set(key, System.getProperty(key)));
    }
    switch (reader) {
      case "s3a-classic" -> { }
      case "rubix-excluded" -> {
        conf.set("rubix.cache.rules", "data");
        conf.set("rubix.cache.rule.data.paths", "s3a://" + BUCKET + "/data/**");
        conf.set("rubix.cache.rule.data.action", "exclude");
      }
      case "rubix-quota" -> {
        conf.set("rubix.cache.rules", "data");
        conf.set("rubix.cache.rule.data.paths", "s3a://" + BUCKET + "/data/**");
        conf.set("rubix.cache.rule.data.quota", "4k");
      }
      case "rubix-metadata-down" -> {
        conf.set("rubix.cluster.embedded.mode", "false");
        conf.set("rubix.network.bookkeeper.server.port", Integer.toString(closedPort));
      }
      default -> throw new IllegalArgumentException("Unknown reader " + reader);
    }
    fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
    server.store().reset();
  }

  @Benchmark
  public long declinedSequentialRead() throws IOException {
    long total = 0;
    try (FSDataInputStream in = fs.open(OBJECT)) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        total += n;
      }
    }
    if (total != length) {
      throw new IOException("Read " + total + " bytes of " + OBJECT + ", expected " + length);
    }
    return total;
  }

  @TearDown(Level.Invocation)
  public void closeFileSystem() throws IOException {
    gets += server.store().gets();
    invocations++;
    fs.close();
    BenchFiles.deleteRecursively(cacheDir);
  }

  @TearDown(Level.Trial)
  public void stopServer() {
    System.out.printf(Locale.ROOT, "%n%s, %d B reads: %.1f GETs per read (%d reads)%n", reader, bufferSize,
        (double) gets / invocations, invocations);
    server.close();
    BenchFiles.deleteRecursively(dir);
  }
}
