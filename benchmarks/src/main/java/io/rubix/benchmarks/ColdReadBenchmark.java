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
import org.apache.hadoop.fs.s3a.S3AFileSystem;
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
 * Cold reads: the first sequential read of an {@code objectMib} MiB object (64 unless set), open to end of file
 * with a {@code read(byte[])} loop, from the in-process S3 server (S3Proxy, in memory) that adds
 * {@code -Drubix.bench.latency.ms} (default 20) ms before the first byte of every GET and, when
 * {@code -Drubix.bench.bandwidth.mbps} is set, limits each GET to that many MB/s (default:
 * unlimited).
 *
 * <p>Readers: {@code rubix} ({@link CachingS3AFileSystem} with an empty cache, default settings),
 * {@code rubix-first-read} (the same with {@code rubix.cache.checksum.verify=first-read}) and
 * plain {@link S3AFileSystem} with {@code fs.s3a.input.stream.type} = classic, analytics (the 3.4.3
 * default) or prefetch. Every invocation gets a new file system instance and, for RubiX, a new empty
 * cache directory (setup at {@link Level#Invocation}, not timed), so no in-memory or on-disk cache of
 * any reader survives from one measured read to the next: every measured read is cold. The timed part
 * is open (one HEAD) + reads + close.
 *
 * <p>Readers that the cache declines, against plain S3A ({@code -p objectMib=16 -p bufferSize=65536}
 * is the declined-reads run of benchmarks/README.md): {@code rubix-excluded} (a path rule excludes the object: S3A's own stream),
 * {@code rubix-quota} (the object's rule has a quota smaller than a block: every grant is refused, as when
 * a quota is spent), {@code rubix-metadata-down} (the reader is set to use a BookKeeper daemon on a port
 * nothing listens on).
 *
 * <p>{@code access}: {@code stream} reads with a {@code read(byte[])} loop; {@code positioned} with
 * {@code readFully(position, byte[])} calls front to back, the way ORC and Parquet readers read; {@code
 * random} reads {@value #RANDOM_READS} {@code bufferSize} ranges at seeded random positions with
 * {@code readFully(position, byte[])} (the same positions in every invocation).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3)
@Measurement(iterations = 8)
public class ColdReadBenchmark {
  private static final String BUCKET = "bench";
  private static final org.apache.hadoop.fs.Path OBJECT = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/data/object.bin");

  @Param({"rubix", "rubix-first-read", "s3a-classic", "s3a-analytics", "s3a-prefetch"})
  public String reader;

  @Param({"1048576", "65536"})
  public int bufferSize;

  @Param({"stream"})
  public String access;

  @Param({"64"})
  public int objectMib;

  static final int RANDOM_READS = 32;

  private S3Server server;
  private Path dir;
  private long length;
  private byte[] buffer;
  private int invocation;
  private Path cacheDir;
  private FileSystem fs;
  private long gets;
  private long invocations;
  /** A port nothing listens on, for {@code rubix-metadata-down}. */
  private int closedPort;

  @Setup(Level.Trial)
  public void startServer() throws Exception {
    dir = BenchFiles.newScratchDir("rubix-cold-");
    server = S3Server.inMemory();
    server.createBucket(BUCKET);
    length = (long) objectMib << 20;
    Configuration conf = baseConfiguration();
    conf.set("fs.s3a.input.stream.type", "classic");
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
        FSDataOutputStream out = writer.create(OBJECT)) {
      for (long at = 0; at < length; at += 1 << 20) {
        out.write(BenchFiles.randomBytes(1 << 20, at));
      }
    }
    server.store().setFirstByteLatency(Duration.ofMillis(Long.getLong("rubix.bench.latency.ms", 20)));
    long megabytesPerSecond = Long.getLong("rubix.bench.bandwidth.mbps", 0);
    server.store().setBandwidth(megabytesPerSecond * 1_000_000);
    buffer = new byte[bufferSize];
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
  }

  @Setup(Level.Invocation)
  public void openFileSystem() throws IOException {
    cacheDir = dir.resolve("cache-" + invocation++);
    Configuration conf = baseConfiguration();
    if (reader.startsWith("rubix")) {
      conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
      conf.set("fs.s3a.input.stream.type", "classic");
      conf.set("rubix.cache.checksum.verify", reader.equals("rubix-first-read") ? "first-read" : "always");
      conf.set("rubix.cache.dirs", cacheDir.toString());
      conf.set("rubix.cache.jmx.enabled", "false");
      // -Drubix.cache.<key>=<value> on the JMH command line (-jvmArgsAppend) overrides cache settings, for tuning runs
      System.getProperties().stringPropertyNames().stream()
          .filter(key -> key.startsWith("rubix.cache."))
          .forEach(key -> conf.set(key, System.getProperty(key)));
    }
    switch (reader) {
      case "rubix", "rubix-first-read" -> { }
      // the cache declines the object: a path rule excludes it, its rule's quota is smaller than a block (as when
      // spent), or the reader is set to use a BookKeeper daemon on a port nothing listens on
      case "rubix-excluded" -> rule(conf, "action", "exclude");
      case "rubix-quota" -> rule(conf, "quota", "4k");
      case "rubix-metadata-down" -> {
        conf.set("rubix.cluster.embedded.mode", "false");
        conf.set("rubix.network.bookkeeper.server.port", Integer.toString(closedPort));
      }
      case "s3a-classic" -> conf.set("fs.s3a.input.stream.type", "classic");
      case "s3a-analytics" -> conf.set("fs.s3a.input.stream.type", "analytics");
      case "s3a-prefetch" -> conf.set("fs.s3a.input.stream.type", "prefetch");
      default -> throw new IllegalArgumentException("Unknown reader " + reader);
    }
    fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
    server.store().reset();
  }

  private static void rule(Configuration conf, String setting, String value) {
    conf.set("rubix.cache.rules", "data");
    conf.set("rubix.cache.rule.data.paths", "s3a://" + BUCKET + "/data/**");
    conf.set("rubix.cache.rule.data." + setting, value);
  }

  @Benchmark
  public long coldSequentialRead() throws IOException {
    long total = 0;
    try (FSDataInputStream in = fs.open(OBJECT)) {
      switch (access) {
        case "stream" -> {
          int n;
          while ((n = in.read(buffer)) >= 0) {
            total += n;
          }
        }
        case "positioned" -> {
          for (long at = 0; at < length; at += buffer.length) {
            int n = (int) Math.min(buffer.length, length - at);
            in.readFully(at, buffer, 0, n);
            total += n;
          }
        }
        case "random" -> {
          java.util.Random random = new java.util.Random(42);
          for (int i = 0; i < RANDOM_READS; i++) {
            in.readFully(random.nextLong(length - buffer.length), buffer, 0, buffer.length);
          }
          return RANDOM_READS;
        }
        default -> throw new IllegalArgumentException("Unknown access " + access);
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
    System.out.printf(Locale.ROOT, "%n%s, %d B reads: %.1f GETs per cold read (%d reads)%n", reader, bufferSize,
        (double) gets / invocations, invocations);
    server.close();
    BenchFiles.deleteRecursively(dir);
  }

  private Configuration baseConfiguration() {
    Configuration conf = server.s3aConfiguration();
    conf.set("hadoop.tmp.dir", dir.resolve("hadoop-tmp").toString());
    conf.set("fs.s3a.buffer.dir", dir.resolve("s3a-buffer").toString());
    return conf;
  }
}
