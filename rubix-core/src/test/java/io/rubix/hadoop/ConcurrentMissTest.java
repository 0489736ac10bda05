package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/** Each block crosses the network once: concurrent misses of one block through one file system make one GET. */
class ConcurrentMissTest {
  private static final int BLOCK = 64 * 1024;
  private static final int THREADS = 8;
  private static S3Server server;
  private static int objects;

  @TempDir
  Path cacheDir;

  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("miss");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
    server.store().setFirstByteLatency(Duration.ZERO);
  }

  private Configuration conf() {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.readahead.max", "0");
    // one block per miss: no tail or whole-object extent
    conf.set("rubix.cache.fetch.tail.size", "0");
    conf.set("rubix.cache.fetch.whole.max", "0");
    return conf;
  }

  private static byte[] upload(FileSystem fs, org.apache.hadoop.fs.Path path, int length) throws Exception {
    byte[] data = new byte[length];
    new Random(length).nextBytes(data);
    write(fs, path, data);
    return data;
  }

  @RepeatedTest(3)
  void threadsMissingOneBlockTogetherMakeOneGet() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://miss/threads-" + (++objects) + ".bin");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://miss/"), conf())) {
      byte[] data = upload(fs, path, 4 * BLOCK + 99);
      long blockStart = 2L * BLOCK;
      // a slow first byte keeps the fetch in flight while the other threads arrive
      server.store().setFirstByteLatency(Duration.ofMillis(100));
      server.store().reset();
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<byte[]>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int offset = t * 1000;
        results.add(pool.submit(() -> {
          try (FSDataInputStream in = fs.open(path)) {
            byte[] bytes = new byte[2000];
            start.await();
            in.readFully(blockStart + offset, bytes);
            return bytes;
          }
        }));
      }
      for (int t = 0; t < THREADS; t++) {
        int from = (int) blockStart + t * 1000;
        assertThat(results.get(t).get(30, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(data, from, from + 2000));
      }
      assertThat(server.store().gets()).as("GETs at the S3 server").isEqualTo(1);
      assertThat(server.store().bytesServed()).isLessThan(2L * BLOCK);
      assertThat(((CachingS3AFileSystem) fs).cacheEngine().stats().get(CacheCounter.FALLBACK_INFLIGHT)).isZero();
    }
  }

  @RepeatedTest(3)
  void vectoredReadOfAdjacentRangesInOneBlockMakesOneGet() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://miss/vectored-" + (++objects) + ".bin");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://miss/"), conf())) {
      byte[] data = upload(fs, path, 3 * BLOCK + 5);
      server.store().setFirstByteLatency(Duration.ofMillis(100));
      server.store().reset();
      List<FileRange> ranges = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        ranges.add(FileRange.createFileRange(BLOCK + i * 1024L, 1024));
      }
      try (FSDataInputStream in = fs.open(path)) {
        in.readVectored(ranges, ByteBuffer::allocateDirect);
        for (FileRange range : ranges) {
          ByteBuffer buffer = range.getData().get(30, TimeUnit.SECONDS);
          byte[] bytes = new byte[range.getLength()];
          buffer.get(bytes);
          int from = (int) range.getOffset();
          assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, from, from + range.getLength()));
        }
      }
      assertThat(server.store().gets()).as("GETs at the S3 server").isEqualTo(1);
    }
  }
}
