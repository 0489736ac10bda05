package io.rubix.benchmarks;

import io.rubix.core.CacheEngine;
import io.rubix.core.read.CachingInputStream;
import io.rubix.hadoop.CachingFileSystem;
import io.rubix.hadoop.CachingLocalFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
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
 * Warm reads: a {@value #FILE_MIB} MiB file fully cached by {@link CachingLocalFileSystem}, read
 * through the cache, against {@link FileChannel} positioned reads of the same bytes from a plain local
 * file (both files are in the OS page cache, so this measures the code path, not the disk).
 *
 * <ul>
 *   <li>{@code sequential*}: 1 MiB reads front to back (wrapping around); one operation is 1 MiB, so
 *       ops/s is MiB/s. The cache reads through the stream's sequential {@code read}.
 *   <li>{@code random*}: 64 KiB positioned reads at random 4 KiB-aligned offsets, sampled per read
 *       for p50/p99 latency.
 * </ul>
 * The cache side is parameterized by {@code rubix.cache.checksum.verify}.
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class WarmReadBenchmark {
  static final int FILE_MIB = 256;
  static final int SEQUENTIAL_READ = 1 << 20;
  static final int RANDOM_READ = 64 << 10;
  private static final int OFFSETS = 1 << 14;

  /** The file, cached completely, and one open stream over it. */
  @State(Scope.Benchmark)
  public static class Cache {
    @Param({"always", "first-read", "never"})
    public String checksum;

    /** rubix.cache.block.size; the default is the cache's own. */
    @Param({"default"})
    public String blockSize;

    Path dir;
    FileSystem fs;
    FSDataInputStream in;
    long length;
    final byte[] sequential = new byte[SEQUENTIAL_READ];
    final byte[] random = new byte[RANDOM_READ];
    long[] offsets;
    int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
      dir = BenchFiles.newScratchDir("rubix-warm-");
      Path data = dir.resolve("data.bin");
      length = (long) FILE_MIB << 20;
      BenchFiles.writeRandomFile(data, length, 42);
      Configuration conf = new Configuration();
      conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
      conf.setBoolean("fs.file.impl.disable.cache", true);
      conf.set("rubix.cache.dirs", dir.resolve("cache").toString());
      conf.set("rubix.cache.checksum.verify", checksum);
      conf.set("rubix.cache.jmx.enabled", "false");
      if (!blockSize.equals("default")) {
        conf.set("rubix.cache.block.size", blockSize);
      }
      fs = FileSystem.newInstance(URI.create("file:///"), conf);
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(data.toUri());
      in = fs.open(path);
      for (long at = 0; at < length; at += SEQUENTIAL_READ) {
        in.readFully(sequential);
      }
      awaitCached(((CachingFileSystem) fs).cacheEngine(), ((CachingInputStream) in.getWrappedStream()).version());
      in.seek(0);
      offsets = randomOffsets(length);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      in.close();
      fs.close();
      BenchFiles.deleteRecursively(dir);
    }
  }

  /** The same bytes in a plain local file, read with positioned FileChannel reads. */
  @State(Scope.Benchmark)
  public static class Local {
    Path dir;
    FileChannel channel;
    long length;
    final ByteBuffer sequential = ByteBuffer.allocate(SEQUENTIAL_READ);
    final ByteBuffer random = ByteBuffer.allocate(RANDOM_READ);
    long position;
    long[] offsets;
    int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = BenchFiles.newScratchDir("rubix-local-");
      Path data = dir.resolve("data.bin");
      length = (long) FILE_MIB << 20;
      BenchFiles.writeRandomFile(data, length, 42);
      channel = FileChannel.open(data, StandardOpenOption.READ);
      for (long at = 0; at < length; at += SEQUENTIAL_READ) {
        BenchFiles.readFully(channel, at, sequential.clear());
      }
      offsets = randomOffsets(length);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      channel.close();
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
  public ByteBuffer sequentialLocal(Local local) throws IOException {
    if (local.position >= local.length) {
      local.position = 0;
    }
    BenchFiles.readFully(local.channel, local.position, local.sequential.clear());
    local.position += SEQUENTIAL_READ;
    return local.sequential;
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public byte[] randomCache(Cache cache) throws IOException {
    long at = cache.offsets[cache.next++ & (OFFSETS - 1)];
    cache.in.readFully(at, cache.random);
    return cache.random;
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public ByteBuffer randomLocal(Local local) throws IOException {
    return readRandom(local);
  }

  /** The next random read of the local file. */
  static ByteBuffer readRandom(Local local) throws IOException {
    long at = local.offsets[local.next++ & (OFFSETS - 1)];
    BenchFiles.readFully(local.channel, at, local.random.clear());
    return local.random;
  }

  static long[] randomOffsets(long length) {
    SplittableRandom random = new SplittableRandom(7);
    long slots = (length - RANDOM_READ) / 4096;
    long[] offsets = new long[OFFSETS];
    for (int i = 0; i < OFFSETS; i++) {
      offsets[i] = random.nextLong(slots + 1) * 4096;
    }
    return offsets;
  }

  /** Waits until the asynchronous cache writes of the warming read are published. */
  static void awaitCached(CacheEngine engine, ObjectVersion version) throws IOException, InterruptedException {
    int blocks = version.blockCount(engine.config().blockSize());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      BlockRange status = engine.service().status(version, 0, blocks);
      if (status.allCached(0, blocks)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Blocks of " + version + " were not all cached within 60 s");
      }
      Thread.sleep(10);
    }
  }
}
