package io.rubix.benchmarks;

import io.rubix.bookkeeper.BookKeeper;
import io.rubix.bookkeeper.BookKeeperConfig;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.read.CachingInputStream;
import io.rubix.hadoop.CachingFileSystem;
import io.rubix.hadoop.CachingLocalFileSystem;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
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
 * Warm 1 MiB sequential reads and 64 KiB random positioned reads (as {@link WarmReadBenchmark}'s) of a
 * fully cached {@value WarmReadBenchmark#FILE_MIB} MiB file through
 * {@link CachingLocalFileSystem} whose metadata lives in this JVM ({@code embedded}) or in a
 * {@link BookKeeper} daemon ({@code daemon}: {@code rubix.cluster.embedded.mode=false}, the daemon
 * started in this JVM on 127.0.0.1 with port 0, reached over loopback Thrift), against
 * {@link java.nio.channels.FileChannel} reads of a plain local file ({@link WarmReadBenchmark.Local}).
 * A sequential operation is 1 MiB, so ops/s is MiB/s. Checksum verification {@code first-read} (the default).
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class BookKeeperWarmReadBenchmark {

  /** The file, cached completely, and one open stream over it. */
  @State(Scope.Benchmark)
  public static class Cache {
    @Param({"embedded", "daemon"})
    public String metadata;

    @Param({"first-read"})
    public String checksum;

    Path dir;
    BookKeeper bookKeeper;
    FileSystem fs;
    FSDataInputStream in;
    long length;
    final byte[] sequential = new byte[WarmReadBenchmark.SEQUENTIAL_READ];
    final byte[] random = new byte[WarmReadBenchmark.RANDOM_READ];
    long[] offsets;
    int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
      dir = BenchFiles.newScratchDir("rubix-bk-warm-");
      Path data = dir.resolve("data.bin");
      length = (long) WarmReadBenchmark.FILE_MIB << 20;
      BenchFiles.writeRandomFile(data, length, 42);
      Path cacheDir = dir.resolve("cache");
      Configuration conf = new Configuration();
      conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
      conf.setBoolean("fs.file.impl.disable.cache", true);
      conf.set("rubix.cache.dirs", cacheDir.toString());
      conf.set("rubix.cache.checksum.verify", checksum);
      conf.set("rubix.cache.jmx.enabled", "false");
      switch (metadata) {
        case "embedded" -> conf.set("rubix.cluster.embedded.mode", "true");
        case "daemon" -> {
          Configuration daemon = new Configuration(false);
          daemon.set("rubix.cache.dirs", cacheDir.toString());
          daemon.set("rubix.network.bookkeeper.bind.address", "127.0.0.1");
          daemon.set("rubix.network.bookkeeper.server.port", "0");
          daemon.set("rubix.bookkeeper.metrics.port", "-1");
          daemon.set("rubix.network.transfer.server.port", "-1");
          daemon.set("rubix.cluster.node.id", "bench");
          BookKeeperBench.applySystemProperties(daemon);
          bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemon));
          conf.set("rubix.cluster.embedded.mode", "false");
          conf.set("rubix.network.bookkeeper.host", "127.0.0.1");
          conf.set("rubix.network.bookkeeper.server.port", Integer.toString(bookKeeper.port()));
        }
        default -> throw new IllegalArgumentException("Unknown metadata mode " + metadata);
      }
      BookKeeperBench.applySystemProperties(conf);
      fs = FileSystem.newInstance(URI.create("file:///"), conf);
      if (metadata.equals("daemon") && !(((CachingFileSystem) fs).cacheEngine().service() instanceof BookKeeperClient)) {
        throw new IllegalStateException("The file system does not use the BookKeeper: " + ((CachingFileSystem) fs).cacheEngine().service());
      }
      in = fs.open(new org.apache.hadoop.fs.Path(data.toUri()));
      for (long at = 0; at < length; at += sequential.length) {
        in.readFully(sequential);
      }
      WarmReadBenchmark.awaitCached(((CachingFileSystem) fs).cacheEngine(), ((CachingInputStream) in.getWrappedStream()).version());
      in.seek(0);
      offsets = WarmReadBenchmark.randomOffsets(length);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      System.out.printf(Locale.ROOT, "%n%s: %s%n", metadata, ((CachingFileSystem) fs).cacheEngine().stats().snapshot());
      in.close();
      fs.close();
      if (bookKeeper != null) {
        bookKeeper.close();
      }
      BenchFiles.deleteRecursively(dir);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public byte[] sequentialCache(Cache cache) throws IOException {
    if (cache.in.getPos() >= cache.length) {
      cache.in.seek(0);
    }
    cache.in.readFully(cache.sequential);
    return cache.sequential;
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public ByteBuffer sequentialLocal(WarmReadBenchmark.Local local) throws IOException {
    if (local.position >= local.length) {
      local.position = 0;
    }
    BenchFiles.readFully(local.channel, local.position, local.sequential.clear());
    local.position += WarmReadBenchmark.SEQUENTIAL_READ;
    return local.sequential;
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public byte[] randomCache(Cache cache) throws IOException {
    long at = cache.offsets[cache.next++ & (cache.offsets.length - 1)];
    cache.in.readFully(at, cache.random);
    return cache.random;
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ByteBuffer randomLocal(WarmReadBenchmark.Local local) throws IOException {
    return WarmReadBenchmark.readRandom(local);
  }
}
