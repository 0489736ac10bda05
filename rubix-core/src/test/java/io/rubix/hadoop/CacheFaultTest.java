package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.dataFiles;
import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.readAll;
import static io.rubix.hadoop.CacheTestSupport.version;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.CacheEngine;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cache degrades safely: with an unusable cache directory, a full disk, corrupt or truncated
 * cache files and a source that returns short reads, reads still return the source's bytes and a
 * counter says what happened; strict mode turns cache-side failures into read errors.
 */
class CacheFaultTest {
  private static final int BLOCK = 4096;
  private static final int LENGTH = 5 * BLOCK + 100;

  @TempDir
  Path tmp;

  private RawLocalFileSystem plain;
  private org.apache.hadoop.fs.Path file;
  private byte[] data;

  @BeforeEach
  void writeSource() throws IOException {
    plain = new RawLocalFileSystem();
    plain.initialize(URI.create("file:///"), new Configuration());
    data = new byte[LENGTH];
    new Random(11).nextBytes(data);
    file = new org.apache.hadoop.fs.Path(tmp.resolve("data/source.bin").toUri());
    write(plain, file, data);
  }

  @AfterEach
  void closePlain() throws IOException {
    plain.close();
  }

  private Configuration conf(Path cacheDir) {
    Configuration conf = localConf(cacheDir);
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.readahead.max", "0");
    // one block per miss: no tail or whole-object extent
    conf.set("rubix.cache.fetch.tail.size", "0");
    conf.set("rubix.cache.fetch.whole.max", "0");
    return conf;
  }

  private static FileSystem open(Configuration conf) throws IOException {
    return FileSystem.newInstance(URI.create("file:///"), conf);
  }

  private static CacheEngine engine(FileSystem fs) {
    return ((CachingFileSystem) fs).cacheEngine();
  }

  /** Reads the whole file with one positioned read and waits until the writes it started are done. */
  private byte[] readAndSettle(FileSystem fs) throws Exception {
    byte[] bytes = new byte[LENGTH];
    ObjectVersion version;
    try (FSDataInputStream in = fs.open(file)) {
      in.readFully(0, bytes);
      version = version(in);
    }
    awaitWrites(engine(fs), version);
    return bytes;
  }

  @Test
  void cacheDirectoryThatIsAFileFallsBackToTheSource() throws Exception {
    Path notADirectory = tmp.resolve("cache-is-a-file");
    Files.writeString(notADirectory, "not a directory");
    try (FileSystem fs = open(conf(notADirectory))) {
      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(readAndSettle(fs)).isEqualTo(data);
      CacheStats stats = engine(fs).stats();
      assertThat(stats.get(CacheCounter.FALLBACK_METADATA)).as("no cache file can be created").isGreaterThanOrEqualTo(2);
      assertThat(stats.get(CacheCounter.HIT_BYTES)).isZero();
      assertThat(stats.get(CacheCounter.SOURCE_BYTES)).isEqualTo(2L * LENGTH);
    }
    assertThat(notADirectory).isRegularFile().hasContent("not a directory");
  }

  @Test
  void cacheDirectoryThatIsAFileFailsReadsInStrictMode() throws Exception {
    Path notADirectory = tmp.resolve("cache-is-a-file");
    Files.writeString(notADirectory, "not a directory");
    Configuration conf = conf(notADirectory);
    conf.set("rubix.cache.strict.mode", "true");
    try (FileSystem fs = open(conf); FSDataInputStream in = fs.open(file)) {
      assertThatThrownBy(() -> in.readFully(0, new byte[LENGTH])).isInstanceOf(IOException.class);
      assertThat(engine(fs).stats().get(CacheCounter.FALLBACK_METADATA)).isEqualTo(1);
    }
  }

  @Test
  void fullDiskFallsBackToTheSource() throws Exception {
    Configuration conf = conf(tmp.resolve("cache"));
    conf.set("fs.file.impl", FaultFakes.NoSpaceCachingFileSystem.class.getName());
    try (FileSystem fs = open(conf)) {
      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(readAndSettle(fs)).isEqualTo(data);
      CacheStats stats = engine(fs).stats();
      assertThat(stats.get(CacheCounter.FALLBACK_CACHE_WRITE)).isGreaterThanOrEqualTo(2);
      assertThat(stats.get(CacheCounter.HIT_BYTES)).isZero();
      assertThat(stats.get(CacheCounter.CACHE_WRITE_BYTES)).isZero();
    }
  }

  @Test
  void fullDiskFailsReadsInStrictMode() throws Exception {
    Configuration conf = conf(tmp.resolve("cache"));
    conf.set("fs.file.impl", FaultFakes.NoSpaceCachingFileSystem.class.getName());
    conf.set("rubix.cache.strict.mode", "true");
    try (FileSystem fs = open(conf); FSDataInputStream in = fs.open(file)) {
      assertThatThrownBy(() -> in.readFully(0, new byte[LENGTH])).isInstanceOf(IOException.class).hasMessageContaining(FaultFakes.NO_SPACE);
      assertThat(engine(fs).stats().get(CacheCounter.FALLBACK_CACHE_WRITE)).isEqualTo(1);
    }
  }

  @Test
  void tinyCapCachesWhatFitsAndCountsTheRest() throws Exception {
    Configuration conf = conf(tmp.resolve("cache"));
    // one block and the 4 KiB the service charges per object
    long cap = BLOCK + 4096;
    conf.set("rubix.cache.max.size", Long.toString(cap));
    try (FileSystem fs = open(conf)) {
      assertThat(readAndSettle(fs)).isEqualTo(data);
      CacheStats stats = engine(fs).stats();
      // block 0 fills the cap; blocks 1-5 of the same object cannot evict it
      assertThat(stats.get(CacheCounter.FALLBACK_NO_SPACE)).isEqualTo(5);
      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(stats.get(CacheCounter.FALLBACK_NO_SPACE)).isEqualTo(10);
      assertThat(stats.get(CacheCounter.HIT_BYTES)).isEqualTo(BLOCK);
      assertThat(engine(fs).service().usage().usedBytes()).isLessThanOrEqualTo(cap);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"always", "first-read"})
  void corruptBlockIsDetectedDroppedAndRefetched(String verify) throws Exception {
    Path cacheDir = tmp.resolve("cache");
    Configuration conf = conf(cacheDir);
    conf.set("rubix.cache.checksum.verify", verify);
    try (FileSystem fs = open(conf)) {
      assertThat(readAndSettle(fs)).isEqualTo(data);
      CacheStats stats = engine(fs).stats();
      assertThat(stats.get(CacheCounter.HIT_BYTES)).isZero();
      List<Path> files = dataFiles(cacheDir);
      assertThat(files).hasSize(1);
      flipByte(files.get(0), 2L * BLOCK + 17);

      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(stats.get(CacheCounter.CHECKSUM_FAILURES)).isEqualTo(1);
      assertThat(stats.get(CacheCounter.FALLBACK_CHECKSUM)).isEqualTo(1);
      assertThat(stats.get(CacheCounter.SOURCE_BYTES)).as("the corrupt block is fetched again").isEqualTo(LENGTH + (long) BLOCK);

      long sourceBytes = stats.get(CacheCounter.SOURCE_BYTES);
      long hits = stats.get(CacheCounter.HIT_BYTES);
      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(stats.get(CacheCounter.CHECKSUM_FAILURES)).as("the re-fetched block was cached again").isEqualTo(1);
      assertThat(stats.get(CacheCounter.SOURCE_BYTES)).isEqualTo(sourceBytes);
      assertThat(stats.get(CacheCounter.HIT_BYTES)).isEqualTo(hits + LENGTH);
    }
  }

  @Test
  void truncatedCacheFileIsDetectedAndRefetched() throws Exception {
    Path cacheDir = tmp.resolve("cache");
    try (FileSystem fs = open(conf(cacheDir))) {
      assertThat(readAndSettle(fs)).isEqualTo(data);
      List<Path> files = dataFiles(cacheDir);
      assertThat(files).hasSize(1);
      try (FileChannel channel = FileChannel.open(files.get(0), StandardOpenOption.WRITE)) {
        channel.truncate(3L * BLOCK + 5);
      }
      CacheStats stats = engine(fs).stats();

      assertThat(readAndSettle(fs)).isEqualTo(data);
      // a data file short of its live length is gone, not corrupt: the service drops it on the first report
      assertThat(stats.get(CacheCounter.CHECKSUM_FAILURES)).isZero();
      assertThat(stats.get(CacheCounter.FALLBACK_CACHE_READ)).isEqualTo(1);
      assertThat(files.get(0)).doesNotExist();

      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(stats.get(CacheCounter.FALLBACK_CACHE_READ)).isEqualTo(1);
      assertThat(stats.get(CacheCounter.SOURCE_BYTES)).as("the file was fetched again once").isEqualTo(2L * LENGTH);
    }
  }

  @Test
  void shortReadsFromTheSourceStillFillWholeBlocks() throws Exception {
    Configuration conf = conf(tmp.resolve("cache"));
    conf.set("rubix.fs.file.wrapped.impl", FaultFakes.ShortReadFileSystem.class.getName());
    conf.setInt(FaultFakes.ShortReadFileSystem.MAX_KEY, 777);
    conf.set("rubix.cache.fetch.chunk.size", Integer.toString(2 * BLOCK));
    try (FileSystem fs = open(conf)) {
      FaultFakes.ShortReadFileSystem source = (FaultFakes.ShortReadFileSystem) ((FilterFileSystem) fs).getRawFileSystem();
      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(source.shortened.get()).isPositive();
      try (FSDataInputStream in = fs.open(file)) {
        byte[] bytes = new byte[LENGTH];
        int n;
        int at = 0;
        while ((n = in.read(bytes, at, Math.min(3000, LENGTH - at))) > 0) {
          at += n;
        }
        assertThat(at).isEqualTo(LENGTH);
        assertThat(bytes).isEqualTo(data);
        ByteBuffer direct = ByteBuffer.allocateDirect(LENGTH - 10);
        in.readFully(10, direct);
        direct.flip();
        byte[] tail = new byte[LENGTH - 10];
        direct.get(tail);
        assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(data, 10, LENGTH));
      }
      assertThat(engine(fs).stats().get(CacheCounter.HIT_BYTES)).isEqualTo(2L * LENGTH - 10);
    }
  }

  @Test
  void interruptedReaderDoesNotPoisonTheCacheForOthers() throws Exception {
    try (FileSystem fs = open(conf(tmp.resolve("cache")))) {
      assertThat(readAndSettle(fs)).isEqualTo(data);
      CacheStats stats = engine(fs).stats();
      try (FSDataInputStream in = fs.open(file)) {
        Thread.currentThread().interrupt();
        try {
          byte[] bytes = new byte[LENGTH];
          in.readFully(0, bytes);
          assertThat(bytes).isEqualTo(data);
        } catch (IOException cancelled) {
          // failing an interrupted read is fine (the local source fails it too); poisoning the cache is not
        } finally {
          Thread.interrupted();
        }
      }
      long fallbacks = stats.get(CacheCounter.FALLBACK_CACHE_READ);
      long hits = stats.get(CacheCounter.HIT_BYTES);

      assertThat(readAndSettle(fs)).isEqualTo(data);
      assertThat(stats.get(CacheCounter.HIT_BYTES)).as("counters %s", stats.snapshot()).isEqualTo(hits + LENGTH);
      assertThat(stats.get(CacheCounter.FALLBACK_CACHE_READ)).as("counters %s", stats.snapshot()).isEqualTo(fallbacks);
    }
  }

  @Test
  void lateWriterOfAnInvalidatedObjectNeverLeavesHolesForStaleReaders() throws Exception {
    Path cacheDir = tmp.resolve("cache");
    Configuration conf = conf(cacheDir);
    conf.set("rubix.fs.file.wrapped.impl", FaultFakes.GatedFileSystem.class.getName());
    conf.set("rubix.cache.checksum.verify", "never");
    // strict mode writes blocks in the reading thread, so the late write is done when the read returns
    conf.set("rubix.cache.strict.mode", "true");
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try (FileSystem fs = open(conf); FSDataInputStream stale = fs.open(file)) {
      FaultFakes.GatedFileSystem source = (FaultFakes.GatedFileSystem) ((FilterFileSystem) fs).getRawFileSystem();
      byte[] block0 = new byte[BLOCK];
      stale.readFully(0, block0);
      stale.readFully(0, block0);
      assertThat(engine(fs).stats().get(CacheCounter.HIT_BYTES)).isEqualTo(BLOCK);
      Path dataFile = dataFiles(cacheDir).get(0);

      CountDownLatch fetching = source.arm(2L * BLOCK);
      Future<byte[]> late = executor.submit(() -> {
        try (FSDataInputStream in = fs.open(file)) {
          byte[] block2 = new byte[BLOCK];
          in.readFully(2L * BLOCK, block2);
          return block2;
        }
      });
      assertThat(fetching.await(30, TimeUnit.SECONDS)).isTrue();
      engine(fs).invalidate(version(stale).path());
      assertThat(dataFile).doesNotExist();
      source.release();
      assertThat(late.get(30, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(data, 2 * BLOCK, 3 * BLOCK));

      assertThat(dataFile).as("the late writer must not recreate the evicted file").doesNotExist();
      stale.readFully(0, block0);
      assertThat(block0).isEqualTo(Arrays.copyOf(data, BLOCK));
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * A read-ahead fetch still running when its file system closes: close waits for it, and its blocks
   * are written and committed, not refused by writers already shut down (a Spark job that closes its
   * file systems after the last query would otherwise leave the last blocks it fetched uncached).
   */
  @Test
  void aFetchThatEndsDuringCloseIsStillCached() throws Exception {
    Path cacheDir = tmp.resolve("cache");
    Configuration conf = conf(cacheDir);
    conf.set("rubix.fs.file.wrapped.impl", FaultFakes.GatedFileSystem.class.getName());
    conf.set("rubix.cache.readahead.max", Integer.toString(2 * BLOCK));
    ExecutorService executor = Executors.newSingleThreadExecutor();
    try {
      FileSystem fs = open(conf);
      FaultFakes.GatedFileSystem source = (FaultFakes.GatedFileSystem) ((FilterFileSystem) fs).getRawFileSystem();
      CountDownLatch fetching = source.arm(2L * BLOCK);
      try (FSDataInputStream in = fs.open(file)) {
        byte[] block = new byte[BLOCK];
        in.readFully(block);
        // continues the first read: blocks 2 and 3 are read ahead, and that fetch waits at the gate
        in.readFully(block);
      }
      assertThat(fetching.await(30, TimeUnit.SECONDS)).isTrue();
      Future<?> closed = executor.submit(() -> {
        fs.close();
        return null;
      });
      source.release();
      closed.get(30, TimeUnit.SECONDS);

      try (FileSystem again = open(withoutGate(conf)); FSDataInputStream in = again.open(file)) {
        byte[] block2 = new byte[BLOCK];
        in.readFully(2L * BLOCK, block2);
        assertThat(block2).isEqualTo(Arrays.copyOfRange(data, 2 * BLOCK, 3 * BLOCK));
        assertThat(engine(again).stats().get(CacheCounter.SOURCE_BYTES)).as("block 2 was cached by the read-ahead").isZero();
      }
    } finally {
      executor.shutdownNow();
    }
  }

  /** {@code conf} without the gated source. */
  private static Configuration withoutGate(Configuration conf) {
    Configuration plain = new Configuration(conf);
    plain.unset("rubix.fs.file.wrapped.impl");
    return plain;
  }

  private static void flipByte(Path dataFile, long position) throws IOException {
    try (FileChannel channel = FileChannel.open(dataFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      one.flip();
      one.put(0, (byte) ~one.get(0));
      channel.write(one, position);
    }
  }
}
