package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.version;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3Server;
import io.rubix.testing.ZeroCrcCollisions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a cold read fetches from the store, counted at the S3 server: the blocks a columnar reader asks
 * for and nothing ahead of them, read-ahead only for a stream whose reads continue each other, an
 * object's tail in one GET with the first miss that reaches it, and a small object whole at its first miss.
 */
class FetchPlanTest {
  private static final int BLOCK = 64 * 1024;
  private static S3Server server;
  private static int objects;
  private static int uploads;

  @TempDir
  Path cacheDir;

  private FileSystem fs;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("plan");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void openFileSystem() throws Exception {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.readahead.max", Integer.toString(16 * BLOCK));
    conf.set("rubix.cache.fetch.chunk.size", Integer.toString(8 * BLOCK));
    conf.set("rubix.cache.fetch.tail.size", Integer.toString(4 * BLOCK));
    conf.set("rubix.cache.fetch.whole.max", Integer.toString(10 * BLOCK + 5));
    fs = FileSystem.newInstance(URI.create("s3a://plan/"), conf);
  }

  @AfterEach
  void closeFileSystem() throws Exception {
    fs.close();
  }

  private long count(CacheCounter counter) {
    return ((CachingS3AFileSystem) fs).cacheEngine().stats().get(counter);
  }

  private byte[] upload(org.apache.hadoop.fs.Path path, int length) throws Exception {
    byte[] data = new byte[length];
    new Random(length * 31L + ++uploads).nextBytes(data);
    write(fs, path, data);
    server.store().reset();
    return data;
  }

  /** Uploads {@code data} to {@code path} and resets the server's counts. */
  private void upload(org.apache.hadoop.fs.Path path, byte[] data) throws Exception {
    write(fs, path, data);
    server.store().reset();
  }

  /** Reads {@code [from, from + length)} of {@code path} with one positioned read, checks it against {@code data} and waits for the cache writes. */
  private void readAndSettle(org.apache.hadoop.fs.Path path, byte[] data, int from, int length) throws Exception {
    try (FSDataInputStream in = fs.open(path)) {
      byte[] bytes = new byte[length];
      in.readFully(from, bytes);
      assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, from, from + length));
      awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
    }
  }

  private org.apache.hadoop.fs.Path newPath() {
    return new org.apache.hadoop.fs.Path("s3a://plan/object-" + (++objects) + ".bin");
  }

  /** Reads {@code ranges} of {@code path} with one vectored read, checks each against {@code data} and waits for the cache writes. */
  private void readVectoredAndSettle(org.apache.hadoop.fs.Path path, byte[] data, List<FileRange> ranges) throws Exception {
    try (FSDataInputStream in = fs.open(path)) {
      in.readVectored(ranges, ByteBuffer::allocate);
      for (FileRange range : ranges) {
        ByteBuffer buffer = range.getData().get(30, TimeUnit.SECONDS);
        int from = (int) range.getOffset();
        assertThat(Arrays.copyOfRange(buffer.array(), buffer.arrayOffset(), buffer.arrayOffset() + range.getLength()))
            .isEqualTo(Arrays.copyOfRange(data, from, from + range.getLength()));
      }
      awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
    }
  }

  @Test
  void vectoredRangesFetchTheBlocksTheyTouchAndNothingAhead() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    byte[] data = upload(path, 40 * BLOCK);
    // three adjacent column chunks in blocks 10 to 12, as a columnar reader asks for them
    long start = 10L * BLOCK + 100;
    List<FileRange> ranges = List.of(FileRange.createFileRange(start, 30_000), FileRange.createFileRange(start + 30_000, BLOCK),
        FileRange.createFileRange(start + 30_000 + BLOCK, BLOCK - 20_000));
    readVectoredAndSettle(path, data, ranges);
    assertThat(count(CacheCounter.READAHEAD_BLOCKS)).isZero();
    assertThat(server.store().bytesServed()).as("bytes from S3").isEqualTo(3L * BLOCK);
    assertThat(server.store().gets()).as("ranges whose blocks touch: one GET for the group, not one per range").isEqualTo(1);
  }

  @Test
  void vectoredRangesApartFetchOnlyTheirOwnBlocks() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    byte[] data = upload(path, 40 * BLOCK);
    // two groups: blocks 10-11 and block 15; blocks 12 to 14 lie between them and nobody asked for them
    List<FileRange> ranges = List.of(FileRange.createFileRange(10L * BLOCK + 5, BLOCK), FileRange.createFileRange(11L * BLOCK + 5, 100),
        FileRange.createFileRange(15L * BLOCK, 10));
    for (int pass = 0; pass < 2; pass++) {
      server.store().reset();
      readVectoredAndSettle(path, data, ranges);
      if (pass == 0) {
        assertThat(server.store().bytesServed()).as("bytes from S3").isEqualTo(3L * BLOCK);
        assertThat(server.store().gets()).isEqualTo(2);
      } else {
        assertThat(server.store().gets()).as("warm").isZero();
      }
    }
  }

  @Test
  void aStreamReadsAheadOnlyOnceAReadContinuesThePreviousOne() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    byte[] data = upload(path, 40 * BLOCK);
    try (FSDataInputStream in = fs.open(path)) {
      byte[] bytes = new byte[3 * BLOCK];
      // one large positioned read, one after a jump: no evidence of a scan
      in.readFully(5L * BLOCK, bytes);
      in.readFully(20L * BLOCK + 7, bytes, 0, 1000);
      assertThat(count(CacheCounter.READAHEAD_BLOCKS)).isZero();
      // a stream read that continues the last one is
      in.seek(20L * BLOCK + 1007);
      assertThat(in.read(bytes, 0, 1000)).isEqualTo(1000);
      assertThat(Arrays.copyOf(bytes, 1000)).isEqualTo(Arrays.copyOfRange(data, 20 * BLOCK + 1007, 20 * BLOCK + 2007));
      assertThat(count(CacheCounter.READAHEAD_BLOCKS)).isPositive();
    }
  }

  @Test
  void theFirstMissInTheTailFetchesTheWholeTailInOneGet() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    int length = 40 * BLOCK + 1000;
    byte[] data = upload(path, length);
    try (FSDataInputStream in = fs.open(path)) {
      // a footer guess: the last 16 bytes, then the footer it names, 200 KB before them
      byte[] guess = new byte[16];
      in.readFully(length - 16, guess);
      assertThat(server.store().gets()).as("GETs").isEqualTo(1);
      assertThat(server.store().bytesServed()).isEqualTo(4L * BLOCK + 1000);
      byte[] footer = new byte[200_000];
      in.readFully(length - 16 - footer.length, footer);
      assertThat(footer).isEqualTo(Arrays.copyOfRange(data, length - 16 - footer.length, length - 16));
      assertThat(guess).isEqualTo(Arrays.copyOfRange(data, length - 16, length));
    }
    assertThat(server.store().gets()).as("GETs").isEqualTo(1);
    assertThat(count(CacheCounter.EXTENT_BLOCKS)).isEqualTo(4);
  }

  @Test
  void aSmallObjectIsFetchedWholeAtItsFirstMiss() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    int length = 10 * BLOCK + 5;
    byte[] data = upload(path, length);
    try (FSDataInputStream in = fs.open(path)) {
      byte[] bytes = new byte[100];
      in.readFully(4L * BLOCK + 10, bytes);
      assertThat(bytes).isEqualTo(Arrays.copyOfRange(data, 4 * BLOCK + 10, 4 * BLOCK + 110));
      awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
      // one GET per fetch chunk (8 blocks), in parallel: 2 for 11 blocks
      assertThat(server.store().gets()).as("GETs").isEqualTo(2);
      assertThat(server.store().bytesServed()).isEqualTo(length);
      byte[] all = new byte[length];
      in.readFully(0, all);
      assertThat(all).isEqualTo(data);
    }
    assertThat(server.store().gets()).as("GETs").isEqualTo(2);
    assertThat(count(CacheCounter.READAHEAD_BLOCKS)).isZero();
  }

  @Test
  void anObjectAboveTheWholeSizeIsNotFetchedWhole() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    upload(path, 10 * BLOCK + 6);
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(4L * BLOCK + 10, new byte[100]);
      awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
    }
    assertThat(server.store().bytesServed()).isEqualTo(BLOCK);
  }

  @Test
  void aWarmTailIsReadFromMemoryWithoutTouchingTheDisk() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    int length = 40 * BLOCK + 1000;
    byte[] data = upload(path, length);
    byte[] guess = new byte[16];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(length - 16, guess);
      awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
    }
    // warm: this read comes from the disk and keeps the tail in memory (that load is not a hit of the reader's)
    long hitBytesBefore = count(CacheCounter.HIT_BYTES);
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(length - 16, guess);
    }
    assertThat(count(CacheCounter.HIT_BYTES)).isEqualTo(hitBytesBefore + 16);
    long diskBlocks = count(CacheCounter.HIT_BLOCKS);
    long hitBytes = count(CacheCounter.HIT_BYTES);
    long fromMemory = count(CacheCounter.TAIL_MEMORY_BYTES);
    byte[] footer = new byte[200_000];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(length - 16, guess);
      in.readFully(length - 16 - footer.length, footer);
    }
    assertThat(guess).isEqualTo(Arrays.copyOfRange(data, length - 16, length));
    assertThat(footer).isEqualTo(Arrays.copyOfRange(data, length - 16 - footer.length, length - 16));
    assertThat(count(CacheCounter.TAIL_MEMORY_BYTES)).isEqualTo(fromMemory + 16 + footer.length);
    assertThat(count(CacheCounter.HIT_BLOCKS)).as("blocks read from the disk").isEqualTo(diskBlocks);
    assertThat(count(CacheCounter.HIT_BYTES)).isEqualTo(hitBytes + 16 + footer.length);
    assertThat(server.store().gets()).as("GETs").isEqualTo(1);
  }

  @Test
  void aTailIsKeptOnlyForTheVersionItWasReadFrom() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    int length = 40 * BLOCK + 1000;
    upload(path, length);
    byte[] guess = new byte[16];
    for (int i = 0; i < 2; i++) {
      try (FSDataInputStream in = fs.open(path)) {
        in.readFully(length - 16, guess);
        awaitWrites(((CachingS3AFileSystem) fs).cacheEngine(), version(in));
      }
    }
    // overwritten with the same length: the new version's tail comes from the store, not from memory
    byte[] v2 = upload(path, length);
    long fromMemory = count(CacheCounter.TAIL_MEMORY_BYTES);
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(length - 16, guess);
    }
    assertThat(guess).isEqualTo(Arrays.copyOfRange(v2, length - 16, length));
    assertThat(count(CacheCounter.TAIL_MEMORY_BYTES)).isEqualTo(fromMemory);
    assertThat(server.store().gets()).as("GETs for the new version").isEqualTo(1);
  }

  @Test
  void blocksOfZerosAreFetchedOnceLikeAnyOther() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    int length = 40 * BLOCK + 1000;
    byte[] data = new byte[length];
    new Random(7).nextBytes(data);
    // blocks 12 and 13 and the short last block are zeros (what a sparse or zero-padded file holds)
    Arrays.fill(data, 12 * BLOCK, 14 * BLOCK, (byte) 0);
    Arrays.fill(data, 40 * BLOCK, length, (byte) 0);
    upload(path, data);
    for (int pass = 0; pass < 2; pass++) {
      server.store().reset();
      readAndSettle(path, data, 12 * BLOCK + 10, 2 * BLOCK - 20);
      readAndSettle(path, data, 40 * BLOCK, 1000);
      if (pass == 1) {
        assertThat(server.store().gets()).as("warm: GETs").isZero();
      }
    }
  }

  /**
   * A block whose bytes are not zeros but whose CRC32C is that of zeros is never committed (a hole, read
   * as zeros, would match it): each read fetches it again, with its own bytes.
   */
  @Test
  void aBlockWhoseCrcIsThatOfZerosIsNeverCached() throws Exception {
    org.apache.hadoop.fs.Path path = newPath();
    byte[] data = new byte[40 * BLOCK];
    new Random(11).nextBytes(data);
    System.arraycopy(ZeroCrcCollisions.block(BLOCK), 0, data, 12 * BLOCK, BLOCK);
    upload(path, data);
    for (int pass = 0; pass < 2; pass++) {
      server.store().reset();
      readAndSettle(path, data, 12 * BLOCK, BLOCK);
      assertThat(server.store().bytesServed()).as("pass %s: bytes from S3", pass).isEqualTo(BLOCK);
    }
    readAndSettle(path, data, 11 * BLOCK, 3 * BLOCK);
    server.store().reset();
    readAndSettle(path, data, 11 * BLOCK, 3 * BLOCK);
    assertThat(server.store().bytesServed()).as("its neighbours are cached").isEqualTo(BLOCK);
  }
}
