package io.rubix.core.read;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.read.session.FaultyChannels;
import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.config.CacheKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes the cache declines (here: a disk with no room for a single block), read through the planner: a
 * sequential stream of small reads reads ahead into its memory and makes few requests, a random reader
 * reads just its bytes, the memory budget holds and is given back, and a failed read-ahead costs nothing
 * but its own request.
 */
class SourceReadsTest {
  private static final int BLOCKS = 64;
  private static final long LENGTH = (long) BLOCKS * BLOCK;
  private static final int SMALL_READ = 1024;
  private static final Executor DIRECT = Runnable::run;

  @TempDir
  Path root;

  /** A fixture whose disk cannot hold one block: every block is declined. */
  private ReadFixture fixture() {
    return new ReadFixture(root, LENGTH, ChannelOpener.DEFAULT, BLOCK / 2);
  }

  /** 4-block requests, a read-ahead window of up to 16 blocks, {@code memory} bytes to hold declined ones in. */
  private static BlockReader reader(ReadFixture fixture, long memory) {
    Configuration conf = new Configuration(false);
    conf.set(CacheKeys.DIRS.name(), fixture.root.toString());
    conf.set(CacheKeys.BLOCK_SIZE.name(), Integer.toString(BLOCK));
    conf.set(CacheKeys.FETCH_CHUNK.name(), Integer.toString(4 * BLOCK));
    conf.set(CacheKeys.READAHEAD_MAX.name(), Integer.toString(16 * BLOCK));
    conf.set(CacheKeys.FETCH_TAIL.name(), "0");
    conf.set(CacheKeys.FETCH_WHOLE_MAX.name(), "0");
    conf.set(CacheKeys.TAIL_MEMORY.name(), "0");
    conf.set(CacheKeys.UNCACHED_READAHEAD_MEMORY.name(), Long.toString(memory));
    return new BlockReader(CacheConfig.from(conf), fixture.service, fixture.store, DIRECT, DIRECT);
  }

  private static byte[] read(BlockReader reader, ReadSession s, long from, int length) throws IOException {
    ByteBuffer dst = ByteBuffer.allocate(length);
    assertThat(reader.read(s, from, dst)).isEqualTo(length);
    return dst.array();
  }

  @Test
  void aSequentialStreamOfSmallReadsReadsAheadIntoMemory() throws IOException {
    try (ReadFixture fixture = fixture()) {
      BlockReader reader = reader(fixture, 32L * BLOCK);
      ReadSession s = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      for (long at = 0; at < LENGTH; at += SMALL_READ) {
        assertThat(read(reader, s, at, SMALL_READ)).isEqualTo(fixture.bytes(at, at + SMALL_READ));
        assertThat(reader.heldBytes()).as("held after the read at %s", at).isLessThanOrEqualTo(16L * BLOCK + 2L * 4 * BLOCK);
      }
      // 256 reads; the window ramps up over the first blocks, then one request per 4 blocks (or up to 6 for the last)
      assertThat(fixture.sourceRequests.get()).isBetween(4, 24);
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).as("each byte read once").isEqualTo(LENGTH);
      assertThat(fixture.count(CacheCounter.FALLBACK_NO_SPACE)).isPositive();
      assertThat(fixture.count(CacheCounter.UNCACHED_READAHEAD_BYTES)).isPositive();
      reader.close(s);
      assertThat(reader.heldBytes()).as("given back at close").isZero();
    }
  }

  @Test
  void aRandomReaderReadsJustItsBytes() throws IOException {
    try (ReadFixture fixture = fixture()) {
      BlockReader reader = reader(fixture, 32L * BLOCK);
      ReadSession s = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      long[] positions = {40L * BLOCK + 17, 3L * BLOCK, 63L * BLOCK + 100, 10L * BLOCK + 4000, 0};
      for (long at : positions) {
        assertThat(read(reader, s, at, 50)).isEqualTo(fixture.bytes(at, at + 50));
      }
      assertThat(fixture.sourceRequests.get()).isEqualTo(positions.length);
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).isEqualTo(50L * positions.length);
      assertThat(fixture.count(CacheCounter.UNCACHED_READAHEAD_BYTES)).isZero();
      assertThat(reader.heldBytes()).isZero();
    }
  }

  @Test
  void withoutMemoryEachReadReadsItsOwnBytes() throws IOException {
    try (ReadFixture fixture = fixture()) {
      BlockReader reader = reader(fixture, 0);
      ReadSession s = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      for (long at = 0; at < 8L * BLOCK; at += SMALL_READ) {
        assertThat(read(reader, s, at, SMALL_READ)).isEqualTo(fixture.bytes(at, at + SMALL_READ));
      }
      assertThat(fixture.sourceRequests.get()).isEqualTo(8 * BLOCK / SMALL_READ);
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).isEqualTo(8L * BLOCK);
    }
  }

  @Test
  void theBudgetBoundsWhatStreamsHold() throws IOException {
    try (ReadFixture fixture = fixture()) {
      long budget = 6L * BLOCK;
      BlockReader reader = reader(fixture, budget);
      ReadSession one = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      ReadSession two = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      for (long at = 0; at < LENGTH; at += SMALL_READ) {
        assertThat(read(reader, one, at, SMALL_READ)).isEqualTo(fixture.bytes(at, at + SMALL_READ));
        assertThat(read(reader, two, at, SMALL_READ)).isEqualTo(fixture.bytes(at, at + SMALL_READ));
        assertThat(reader.heldBytes()).isLessThanOrEqualTo(budget);
      }
      reader.close(one);
      reader.unbuffer(two);
      assertThat(reader.heldBytes()).isZero();
    }
  }

  @Test
  void aJumpDropsWhatTheStreamHeld() throws IOException {
    try (ReadFixture fixture = fixture()) {
      BlockReader reader = reader(fixture, 32L * BLOCK);
      ReadSession s = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      for (long at = 0; at < 4L * BLOCK; at += SMALL_READ) {
        read(reader, s, at, SMALL_READ);
      }
      assertThat(reader.heldBytes()).isPositive();
      assertThat(read(reader, s, 50L * BLOCK, SMALL_READ)).isEqualTo(fixture.bytes(50L * BLOCK, 50L * BLOCK + SMALL_READ));
      assertThat(reader.heldBytes()).isZero();
    }
  }

  /**
   * A disk that fails every write (an I/O error, not a full disk: blocks are granted, their writes fail):
   * the blocks read ahead for the cache are kept in the stream's memory instead, so each byte is read
   * from the source once and small reads make no request of their own.
   */
  @Test
  void blocksReadAheadWhoseWriteFailedAreKeptForTheStream() throws IOException {
    FaultyChannels channels = new FaultyChannels();
    channels.failWrites = true;
    try (ReadFixture fixture = new ReadFixture(root, LENGTH, channels, 4 * LENGTH)) {
      BlockReader reader = reader(fixture, 32L * BLOCK);
      ReadSession s = reader.newSession(fixture.version, fixture.source(), fixture.session().stats);
      for (long at = 0; at < LENGTH; at += SMALL_READ) {
        assertThat(read(reader, s, at, SMALL_READ)).isEqualTo(fixture.bytes(at, at + SMALL_READ));
      }
      assertThat(fixture.count(CacheCounter.FALLBACK_CACHE_WRITE)).isPositive();
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).as("each byte read once, counters %s", fixture.stats.snapshot())
          .isLessThanOrEqualTo(LENGTH + 2L * BLOCK);
      assertThat(fixture.sourceRequests.get()).isBetween(10, 30);
      reader.close(s);
      assertThat(reader.heldBytes()).isZero();
    }
  }

  /** Each read-ahead request fails once (a connection reset, say): the reads read those bytes themselves. */
  @Test
  void aFailedReadAheadIsReadByTheReads() throws IOException {
    try (ReadFixture fixture = fixture()) {
      Set<Long> failedOnce = ConcurrentHashMap.newKeySet();
      Source flaky = (position, buffer, offset, length) -> {
        if (length > BLOCK && failedOnce.add(position)) {
          fixture.sourceRequests.incrementAndGet();
          throw new IOException("Connection reset reading " + position);
        }
        fixture.source().readFully(position, buffer, offset, length);
      };
      BlockReader reader = reader(fixture, 32L * BLOCK);
      ReadSession s = reader.newSession(fixture.version, flaky, fixture.session().stats);
      for (long at = 0; at < LENGTH; at += SMALL_READ) {
        assertThat(read(reader, s, at, SMALL_READ)).isEqualTo(fixture.bytes(at, at + SMALL_READ));
      }
      assertThat(failedOnce).isNotEmpty();
      reader.close(s);
      assertThat(reader.heldBytes()).isZero();
    }
  }
}
