package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.readAll;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.CacheEngine;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.testing.S3Server;
import java.io.EOFException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads random files through the cache with every read call the stream offers, from several
 * threads at once, and compares every byte with the same bytes read through the plain file system.
 * Runs with several block sizes (powers of two and not), caps small enough that blocks are evicted
 * while other threads read them, every checksum mode, and read-ahead on and off.
 *
 * <p>Seeded: the seed is printed and part of every failure message; {@code -Drubix.fuzz.seed=N}
 * replays a run's operation sequences (thread interleavings differ from run to run).
 */
class DifferentialFuzzTest {
  private static final long SEED = Long.getLong("rubix.fuzz.seed", System.nanoTime());
  private static final int GUARD = 7;
  private static final byte FILL = (byte) 0xA5;

  /** One cache configuration under test. {@code maxSize} of 0 means no cap beyond the disk's. */
  record Setup(String name, int blockSize, long maxSize, String verify, long readAhead, long chunk, String inFlightPolicy) {
    void apply(Configuration conf) {
      conf.set("rubix.cache.block.size", Integer.toString(blockSize));
      if (maxSize > 0) {
        conf.set("rubix.cache.max.size", Long.toString(maxSize));
      }
      conf.set("rubix.cache.checksum.verify", verify);
      conf.set("rubix.cache.readahead.max", Long.toString(readAhead));
      conf.set("rubix.cache.fetch.chunk.size", Long.toString(chunk));
      conf.set("rubix.cache.inflight.policy", inFlightPolicy);
      conf.set("rubix.cache.fetch.threads", "4");
    }
  }

  private static final List<Setup> LOCAL_SETUPS = List.of(
      new Setup("4k-uncapped-always-readahead", 4096, 0, "always", 64 * 1024, 4L << 20, "wait"),
      new Setup("5000-cap8-firstread-noreadahead", 5000, 8 * 5000, "first-read", 0, 10_000, "wait"),
      new Setup("64k-cap4-never-readahead", 65536, 4 * 65536, "never", 1 << 20, 2 * 65536, "wait"),
      new Setup("4k-cap3-always-readahead", 4096, 3 * 4096, "always", 32 * 1024, 3 * 4096, "wait"),
      new Setup("12288-uncapped-firstread-source", 12288, 0, "first-read", 48 * 1024, 12288, "source"),
      new Setup("4097-cap12-never-noreadahead", 4097, 12 * 4097, "never", 0, 3 * 4097, "wait"),
      // room for a few blocks: most reads are declined and read ahead into the streams' memory, mixed with cached ones
      new Setup("4k-cap3-firstread-readahead-declined", 4096, 3 * 4096, "first-read", 64 * 1024, 4 * 4096, "source"));

  private static final List<Setup> S3_SETUPS = List.of(
      new Setup("s3-4k-cap4-always-readahead", 4096, 4 * 4096, "always", 32 * 1024, 2 * 4096, "wait"),
      new Setup("s3-5000-uncapped-firstread-noreadahead", 5000, 0, "first-read", 0, 4L << 20, "wait"),
      new Setup("s3-4k-cap3-always-readahead-declined", 4096, 3 * 4096, "always", 64 * 1024, 4 * 4096, "wait"));

  private static S3Server server;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startServer() throws Exception {
    System.out.println("DifferentialFuzzTest seed: " + SEED + " (replay with -Drubix.fuzz.seed=" + SEED + ")");
    server = S3Server.inMemory();
    server.createBucket("fuzz");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  @Timeout(120)
  void localFileSystem() throws Exception {
    long reads = 0;
    for (int i = 0; i < LOCAL_SETUPS.size(); i++) {
      Setup setup = LOCAL_SETUPS.get(i);
      Random random = new Random(SEED + i);
      Configuration conf = localConf(tmp.resolve("cache-" + setup.name()));
      setup.apply(conf);
      try (RawLocalFileSystem plain = new RawLocalFileSystem()) {
        plain.initialize(URI.create("file:///"), new Configuration());
        List<org.apache.hadoop.fs.Path> files = writeFiles(plain, new org.apache.hadoop.fs.Path(tmp.resolve("data-" + setup.name()).toUri()),
            setup.blockSize(), random, 12);
        try (FileSystem cached = FileSystem.newInstance(URI.create("file:///"), conf)) {
          assertThat(cached).isInstanceOf(CachingLocalFileSystem.class);
          reads += fuzz(setup, plain, cached, ((CachingFileSystem) cached).cacheEngine(), files, random, 4, 700);
        }
      }
    }
    assertThat(reads).isGreaterThanOrEqualTo(10_000);
  }

  @Test
  @Timeout(120)
  void s3aFileSystem() throws Exception {
    for (int i = 0; i < S3_SETUPS.size(); i++) {
      Setup setup = S3_SETUPS.get(i);
      Random random = new Random(SEED + 100 + i);
      Configuration plainConf = server.s3aConfiguration();
      Configuration conf = server.s3aConfiguration();
      conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
      conf.set("rubix.cache.dirs", tmp.resolve("cache-" + setup.name()).toString());
      conf.set("rubix.cache.jmx.enabled", "false");
      setup.apply(conf);
      URI bucket = URI.create("s3a://fuzz/");
      try (FileSystem plain = FileSystem.newInstance(bucket, plainConf);
          FileSystem cached = FileSystem.newInstance(bucket, conf)) {
        assertThat(cached).isInstanceOf(CachingS3AFileSystem.class);
        List<org.apache.hadoop.fs.Path> files = writeFiles(plain, new org.apache.hadoop.fs.Path("s3a://fuzz/" + setup.name()),
            setup.blockSize(), random, 6);
        fuzz(setup, plain, cached, ((CachingS3AFileSystem) cached).cacheEngine(), files, random, 3, 150);
      }
    }
  }

  private static List<org.apache.hadoop.fs.Path> writeFiles(FileSystem fs, org.apache.hadoop.fs.Path dir, int blockSize, Random random, int count)
      throws Exception {
    List<Integer> sizes = new ArrayList<>(List.of(0, 1, blockSize - 1, blockSize, blockSize + 1, 2 * blockSize + 1, 7 * blockSize + 13,
        12345, 20 * blockSize + blockSize / 3, 99991, 1 + random.nextInt(3 * blockSize), 1 + random.nextInt(30 * blockSize)));
    List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
    for (int i = 0; i < Math.min(count, sizes.size()); i++) {
      byte[] data = new byte[sizes.get(i)];
      random.nextBytes(data);
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(dir, "file-" + i + "-" + data.length + ".bin");
      write(fs, path, data);
      files.add(path);
    }
    return files;
  }

  /** Runs {@code threads} threads of {@code opsPerThread} random reads each; returns how many reads were checked. */
  private static long fuzz(Setup setup, FileSystem plain, FileSystem cached, CacheEngine engine, List<org.apache.hadoop.fs.Path> files,
      Random random, int threads, int opsPerThread) throws Exception {
    long start = System.nanoTime();
    Map<org.apache.hadoop.fs.Path, byte[]> expected = new HashMap<>();
    for (org.apache.hadoop.fs.Path file : files) {
      expected.put(file, readAll(plain, file));
    }
    List<FSDataInputStream> shared = new ArrayList<>();
    for (org.apache.hadoop.fs.Path file : files) {
      shared.add(cached.open(file));
    }
    AtomicLong reads = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier go = new CyclicBarrier(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long threadSeed = random.nextLong();
        futures.add(pool.submit(() -> {
          go.await();
          new Worker(setup, cached, engine, files, shared, expected, new Random(threadSeed), reads).run(opsPerThread);
          return null;
        }));
      }
      for (Future<?> future : futures) {
        try {
          future.get(100, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw new AssertionError("Fuzz setup " + setup + " failed with seed " + SEED + ": " + e.getCause(), e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
      for (FSDataInputStream in : shared) {
        in.close();
      }
    }
    CacheStats stats = engine.stats();
    String context = "setup " + setup.name() + ", seed " + SEED + ", counters " + stats.snapshot();
    assertThat(stats.get(CacheCounter.CHECKSUM_FAILURES)).as(context).isZero();
    assertThat(stats.get(CacheCounter.FALLBACK_CACHE_WRITE)).as(context).isZero();
    assertThat(stats.get(CacheCounter.FALLBACK_METADATA)).as(context).isZero();
    assertThat(stats.get(CacheCounter.HIT_BYTES)).as(context).isPositive();
    CacheUsage usage = engine.service().usage();
    for (CacheUsage.Disk disk : usage.disks()) {
      assertThat(disk.usedBytes() + disk.reservedBytes()).as(context).isLessThanOrEqualTo(disk.capacityBytes());
    }
    if (setup.maxSize() > 0) {
      assertThat(usage.evictions()).as(context).isPositive();
    }
    System.out.printf("DifferentialFuzzTest %s: %d reads in %d ms, counters %s%n", setup.name(), reads.get(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), stats.snapshot());
    return reads.get();
  }

  /** One thread's random reads: sequential ones on streams of its own, positioned and vectored ones on streams all threads share. */
  private static final class Worker {
    private final Setup setup;
    private final FileSystem fs;
    private final CacheEngine engine;
    private final List<org.apache.hadoop.fs.Path> files;
    private final List<FSDataInputStream> shared;
    private final Map<org.apache.hadoop.fs.Path, byte[]> expected;
    private final Random random;
    private final AtomicLong reads;
    private final Map<Integer, FSDataInputStream> own = new HashMap<>();
    private final Map<Integer, Long> ownPosition = new HashMap<>();

    Worker(Setup setup, FileSystem fs, CacheEngine engine, List<org.apache.hadoop.fs.Path> files, List<FSDataInputStream> shared,
        Map<org.apache.hadoop.fs.Path, byte[]> expected, Random random, AtomicLong reads) {
      this.setup = setup;
      this.fs = fs;
      this.engine = engine;
      this.files = files;
      this.shared = shared;
      this.expected = expected;
      this.random = random;
      this.reads = reads;
    }

    void run(int ops) throws Exception {
      try {
        for (int op = 0; op < ops; op++) {
          int file = random.nextInt(files.size());
          byte[] data = expected.get(files.get(file));
          int kind = random.nextInt(11);
          String what = "op " + op + " kind " + kind + " on " + files.get(file) + " (length " + data.length + ", seed " + SEED + ")";
          if (random.nextInt(100) == 0) {
            // drops the object while other threads may be reading or fetching it (as a write through the file system does)
            engine.invalidate(fs.makeQualified(files.get(file)).toString());
          }
          if (kind <= 3 || kind == 10) {
            sequential(kind, file, data, what);
          } else {
            positioned(kind, shared.get(file), data, what);
          }
        }
      } finally {
        for (FSDataInputStream in : own.values()) {
          in.close();
        }
      }
    }

    private FSDataInputStream own(int file) throws Exception {
      FSDataInputStream in = own.get(file);
      if (in == null || random.nextInt(50) == 0) {
        if (in != null) {
          in.close();
        }
        in = fs.open(files.get(file));
        own.put(file, in);
        ownPosition.put(file, 0L);
      }
      return in;
    }

    private void sequential(int kind, int file, byte[] data, String what) throws Exception {
      FSDataInputStream in = own(file);
      long position = ownPosition.get(file);
      if (kind == 2 || random.nextInt(8) == 0) {
        position = position(data.length);
        in.seek(position);
      }
      assertThat(in.getPos()).as(what).isEqualTo(position);
      switch (kind) {
        case 0 -> {
          int count = 1 + random.nextInt(20);
          for (int i = 0; i < count; i++) {
            int b = in.read();
            reads.incrementAndGet();
            if (position >= data.length) {
              assertThat(b).as(what).isEqualTo(-1);
              break;
            }
            assertThat(b).as("%s at %s", what, position).isEqualTo(data[(int) position] & 0xff);
            position++;
          }
        }
        case 1, 2 -> {
          int length = length(data.length, position);
          int offset = random.nextInt(GUARD);
          byte[] buffer = filled(offset + length + GUARD);
          int n = in.read(buffer, offset, length);
          reads.incrementAndGet();
          checkRead(data, position, length, n, buffer, offset, what);
          position += Math.max(n, 0);
        }
        case 3 -> {
          int length = length(data.length, position);
          ByteBuffer buffer = buffer(length);
          int n = in.read(buffer);
          reads.incrementAndGet();
          checkBuffer(data, position, length, n, buffer, what);
          position += Math.max(n, 0);
        }
        default -> {
          long skip = random.nextInt(3 * setup.blockSize());
          long skipped = in.skip(skip);
          assertThat(skipped).as(what).isEqualTo(Math.min(skip, data.length - position));
          position += skipped;
        }
      }
      assertThat(in.getPos()).as(what).isEqualTo(position);
      ownPosition.put(file, position);
    }

    private void positioned(int kind, FSDataInputStream in, byte[] data, String what) throws Exception {
      long position = position(data.length);
      int length = length(data.length, position);
      switch (kind) {
        case 4 -> {
          int offset = random.nextInt(GUARD);
          byte[] buffer = filled(offset + length + GUARD);
          int n = in.read(position, buffer, offset, length);
          checkRead(data, position, length, n, buffer, offset, what);
        }
        case 5 -> {
          int offset = random.nextInt(GUARD);
          if (random.nextInt(10) == 0) {
            int past = length + 1 + random.nextInt(3);
            long at = Math.max(0, data.length - past + 1 + random.nextInt(2));
            assertThatThrownBy(() -> in.readFully(at, new byte[past], 0, past)).as(what).isInstanceOf(EOFException.class);
            break;
          }
          length = (int) Math.min(length, data.length - position);
          byte[] buffer = filled(offset + length + GUARD);
          in.readFully(position, buffer, offset, length);
          checkRead(data, position, length, length, buffer, offset, what);
        }
        case 6 -> {
          ByteBuffer buffer = buffer(length);
          int n = in.read(position, buffer);
          checkBuffer(data, position, length, n, buffer, what);
        }
        case 7 -> {
          length = (int) Math.min(length, data.length - position);
          ByteBuffer buffer = buffer(length);
          in.readFully(position, buffer);
          checkBuffer(data, position, length, length, buffer, what);
        }
        default -> vectored(in, data, what);
      }
      reads.incrementAndGet();
    }

    private void vectored(FSDataInputStream in, byte[] data, String what) throws Exception {
      if (data.length == 0) {
        return;
      }
      List<FileRange> ranges = new ArrayList<>();
      long next = random.nextInt(Math.max(1, data.length / 2));
      int count = 1 + random.nextInt(5);
      for (int i = 0; i < count && next < data.length; i++) {
        int length = 1 + random.nextInt((int) Math.min(Integer.MAX_VALUE, Math.min(data.length - next, 2L * setup.blockSize())));
        ranges.add(FileRange.createFileRange(next, length));
        next += length + random.nextInt(setup.blockSize());
      }
      boolean direct = random.nextBoolean();
      IntFunction<ByteBuffer> allocate = direct ? ByteBuffer::allocateDirect : ByteBuffer::allocate;
      in.readVectored(ranges, allocate);
      for (FileRange range : ranges) {
        ByteBuffer buffer = range.getData().get(30, TimeUnit.SECONDS);
        assertThat(buffer.remaining()).as(what).isEqualTo(range.getLength());
        byte[] actual = new byte[range.getLength()];
        buffer.duplicate().get(actual);
        int from = (int) range.getOffset();
        if (!Arrays.equals(actual, 0, actual.length, data, from, from + range.getLength())) {
          throw new AssertionError("Vectored read " + range + " (direct " + direct + ") returned wrong bytes; " + what);
        }
      }
    }

    /** A position: anywhere, near a block boundary, at or past the end. */
    private long position(int length) {
      int choice = random.nextInt(10);
      if (length == 0 || choice == 0) {
        return length - (length > 0 && random.nextBoolean() ? 1 : 0);
      }
      if (choice < 5) {
        long boundary = (long) random.nextInt(length / setup.blockSize() + 1) * setup.blockSize();
        return Math.max(0, Math.min(length - 1, boundary + random.nextInt(7) - 3));
      }
      return random.nextInt(length);
    }

    /** A read length: tiny, about a block, spanning blocks, or to the end and past it. */
    private int length(int fileLength, long position) {
      int block = setup.blockSize();
      return switch (random.nextInt(6)) {
        case 0 -> 1 + random.nextInt(8);
        case 1 -> block - 2 + random.nextInt(5);
        case 2 -> 1 + random.nextInt(3 * block);
        case 3 -> (int) Math.max(1, fileLength - position + random.nextInt(3));
        default -> 1 + random.nextInt(block);
      };
    }

    private ByteBuffer buffer(int length) {
      ByteBuffer buffer = random.nextBoolean() ? ByteBuffer.allocateDirect(length + 2 * GUARD) : ByteBuffer.allocate(length + 2 * GUARD);
      while (buffer.hasRemaining()) {
        buffer.put(FILL);
      }
      buffer.position(GUARD).limit(GUARD + length);
      return buffer;
    }

    private static byte[] filled(int length) {
      byte[] buffer = new byte[length];
      Arrays.fill(buffer, FILL);
      return buffer;
    }

    private static void checkRead(byte[] data, long position, int length, int n, byte[] buffer, int offset, String what) {
      if (length == 0) {
        assertThat(n).as("empty read; %s", what).isZero();
      } else if (position >= data.length) {
        assertThat(n).as("read at/after EOF; %s", what).isEqualTo(-1);
        n = 0;
      } else {
        assertThat(n).as("read of %s at %s; %s", length, position, what).isBetween(1, length);
        int from = (int) position;
        if (!Arrays.equals(buffer, offset, offset + n, data, from, from + n)) {
          throw new AssertionError("Wrong bytes for [" + position + ", " + (position + n) + "); " + what
              + firstDifference(buffer, offset, data, from, n));
        }
      }
      for (int i = 0; i < buffer.length; i++) {
        if ((i < offset || i >= offset + n) && buffer[i] != FILL) {
          throw new AssertionError("Byte " + i + " outside the read [" + offset + ", " + (offset + n) + ") was written; " + what);
        }
      }
    }

    private static void checkBuffer(byte[] data, long position, int length, int n, ByteBuffer buffer, String what) {
      if (length == 0) {
        assertThat(n).as("empty read; %s", what).isZero();
      } else if (position >= data.length) {
        assertThat(n).as("read at/after EOF; %s", what).isEqualTo(-1);
        n = 0;
      } else {
        assertThat(n).as("read of %s at %s; %s", length, position, what).isBetween(1, length);
      }
      assertThat(buffer.position()).as("buffer position; %s", what).isEqualTo(GUARD + n);
      assertThat(buffer.limit()).as("buffer limit; %s", what).isEqualTo(GUARD + length);
      byte[] actual = new byte[buffer.capacity()];
      buffer.duplicate().clear().get(actual);
      int from = (int) Math.min(position, data.length);
      if (!Arrays.equals(actual, GUARD, GUARD + n, data, from, from + n)) {
        throw new AssertionError("Wrong bytes for [" + position + ", " + (position + n) + ") (direct " + buffer.isDirect() + "); " + what
            + firstDifference(actual, GUARD, data, from, n));
      }
      for (int i = 0; i < actual.length; i++) {
        if ((i < GUARD || i >= GUARD + n) && actual[i] != FILL) {
          throw new AssertionError("Byte " + i + " outside the read was written; " + what);
        }
      }
    }

    private static String firstDifference(byte[] actual, int offset, byte[] expected, int from, int n) {
      for (int i = 0; i < n; i++) {
        if (actual[offset + i] != expected[from + i]) {
          return ": first difference at file offset " + (from + i) + ", expected " + expected[from + i] + ", got " + actual[offset + i];
        }
      }
      return "";
    }
  }
}
