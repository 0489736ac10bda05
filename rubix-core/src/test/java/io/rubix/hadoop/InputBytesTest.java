package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engines' input metrics: Spark sums, per task thread, the bytes read that every file system's Hadoop
 * statistics hold. A stream through the cache counts the bytes it returns there, cold or warm, once each,
 * as S3A's own stream does; before, bytes served from the cache counted nothing (Spark showed 0 B of input
 * for them).
 */
class InputBytesTest {
  private static final int LENGTH = 3 << 20;
  private static S3Server server;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("metrics");
    byte[] data = new byte[LENGTH];
    new Random(23).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://metrics/"), server.s3aConfiguration())) {
      CacheTestSupport.write(fs, new org.apache.hadoop.fs.Path("s3a://metrics/object"), data);
    }
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  /** What this thread has read through all file systems, as Spark's input metrics count it. */
  @SuppressWarnings("deprecation") // what Spark calls
  private static long threadBytesRead() {
    return FileSystem.getAllStatistics().stream().mapToLong(s -> s.getThreadStatistics().getBytesRead()).sum();
  }

  /** The bytes this thread's statistics gained while it read the object sequentially in 64 KiB reads. */
  private static long countedRead(FileSystem fs) throws Exception {
    long before = threadBytesRead();
    byte[] buffer = new byte[64 << 10];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://metrics/object"))) {
      while (in.read(buffer) > 0) {
        // reading is all
      }
    }
    return threadBytesRead() - before;
  }

  @Test
  void bytesReturnedCountOnceWhereverTheyCameFrom() throws Exception {
    Configuration plain = server.s3aConfiguration();
    plain.set("fs.s3a.input.stream.type", "classic");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://metrics/"), plain)) {
      assertThat(countedRead(fs)).as("plain S3A").isEqualTo(LENGTH);
    }
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://metrics/"), conf)) {
      // cold: the blocks a miss fetches in this thread (S3A's stream counts them) are not what the reader read
      assertThat(countedRead(fs)).as("cold").isEqualTo(LENGTH);
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://metrics/object"))) {
        awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
      }
      assertThat(countedRead(fs)).as("warm: every byte from the cache").isEqualTo(LENGTH);
    }
  }

  @Test
  void aColdReadOfAFewBytesCountsThoseNotTheBlockFetched() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://metrics/"), cachingConf())) {
      long before = threadBytesRead();
      byte[] footer = new byte[100];
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://metrics/object"))) {
        in.readFully(LENGTH - 1000, footer);
        in.readFully(1 << 20, footer, 0, 10);
      }
      assertThat(threadBytesRead() - before).isEqualTo(110);
    }
  }

  private Configuration cachingConf() {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    return conf;
  }

  /** ORC reads stripes with vectored reads, which run on other threads: the asking thread counts them. */
  @Test
  void aVectoredReadCountsItsRangesInTheAskingThread() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://metrics/"), cachingConf())) {
      long before = threadBytesRead();
      List<FileRange> ranges = List.of(FileRange.createFileRange(0, 1000), FileRange.createFileRange(2 << 20, 5000));
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://metrics/object"))) {
        in.readVectored(ranges, ByteBuffer::allocate);
        for (FileRange range : ranges) {
          range.getData().get();
        }
      }
      assertThat(threadBytesRead() - before).isEqualTo(6000);
    }
  }
}
