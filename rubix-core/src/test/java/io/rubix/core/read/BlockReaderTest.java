package io.rubix.core.read;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.read.session.CountingMetadataService;
import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The planner over the real service and store: which source of bytes each block of a read comes from. */
class BlockReaderTest {
  /** 6 blocks, the last one short. */
  private static final long LENGTH = 5L * BLOCK + 700;
  private static final Executor DIRECT = Runnable::run;

  @TempDir
  Path root;

  private static BlockReader reader(ReadFixture fixture) {
    return new BlockReader(ReadFixture.config(fixture.root, false, 2), fixture.service, fixture.store, DIRECT, DIRECT);
  }

  /**
   * The owner of every block is another node until a transfer from it fails; then, as a cluster's
   * liveness does when it marks the owner down, this node is the runner-up that owns them.
   */
  @Test
  void blocksTheOwnerFailedToServeAreCachedWhenThisNodeTookItsPlace() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, 8L * BLOCK)) {
      AtomicBoolean ownerDown = new AtomicBoolean();
      PeerReader deadOwner = new PeerReader() {
        @Override
        public Transfer fetch(ObjectVersion version, int blockSize, int first, int end, Consumer<PeerBlock> received) {
          ownerDown.set(true);
          return new Transfer(List.of(), end, true);
        }

        @Override
        public long maxFetchMillis() {
          return 1000;
        }

        @Override
        public long readAheadBytes() {
          return 0;
        }
      };
      BlockReader reader = new BlockReader(ReadFixture.config(fixture.root, false, 2), fixture.service, fixture.store, DIRECT, DIRECT,
          (path, offset) -> ownerDown.get(), deadOwner, DIRECT);

      assertThat(read(reader, fixture.session(), 0, 8L * BLOCK)).isEqualTo(fixture.bytes(0, 8L * BLOCK));
      int firstPass = fixture.sourceRequests.get();
      assertThat(fixture.count(CacheCounter.FALLBACK_PEER)).isPositive();

      assertThat(read(reader, fixture.session(), 0, 8L * BLOCK)).isEqualTo(fixture.bytes(0, 8L * BLOCK));
      assertThat(fixture.sourceRequests.get()).as("source requests of a second pass: each block crossed once").isEqualTo(firstPass);
      assertThat(fixture.service.status(fixture.version, 0, 8).allCached(0, 8)).isTrue();
    }
  }

  private static byte[] read(BlockReader reader, ReadSession s, long from, long to) throws IOException {
    ByteBuffer dst = ByteBuffer.allocate((int) (to - from));
    assertThat(reader.read(s, from, dst)).isEqualTo((int) (to - from));
    assertThat(dst.hasRemaining()).isFalse();
    return dst.array();
  }

  /**
   * A version known by path and length (immutable freshness, Iceberg) comes back with the same key when its
   * path is written again with the same length. The first read's blocks are still in flight (their cache
   * write queued, not run) when the path is forgotten: the next read must fetch the new bytes, not copy
   * the old fetch's buffer.
   */
  @Test
  void aPathForgottenWhileItsBlocksAreInFlightIsNotServedFromTheOldFetch() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      List<Runnable> queuedWrites = new ArrayList<>();
      BlockReader reader = new BlockReader(ReadFixture.config(fixture.root, false, 2), fixture.service, fixture.store, DIRECT,
          queuedWrites::add);
      assertThat(read(reader, fixture.session(), 0, LENGTH)).isEqualTo(fixture.data);
      assertThat(queuedWrites).as("the cache writes wait").isNotEmpty();

      // written again with the same length: what CacheEngine.invalidate does for the path
      fixture.service.invalidatePath(fixture.version.path());
      reader.forget(fixture.version.path());
      byte[] again = new byte[(int) LENGTH];
      new Random(99).nextBytes(again);
      Source rewritten = (position, buffer, offset, length) -> System.arraycopy(again, (int) position, buffer, offset, length);

      assertThat(Arrays.equals(read(reader, fixture.session(rewritten), 0, LENGTH), again)).as("the new bytes").isTrue();
      queuedWrites.forEach(Runnable::run);
      assertThat(Arrays.equals(read(reader, fixture.session(rewritten), 0, LENGTH), again)).as("after the old writes ran").isTrue();
    }
  }

  @Test
  void aColdReadFetchesAndCachesAndTheWarmReadMakesNoSourceRequest() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      BlockReader reader = reader(fixture);
      ReadSession s = fixture.session();

      assertThat(read(reader, s, 10, LENGTH)).isEqualTo(fixture.bytes(10, LENGTH));
      // one source request per chunk of 2 blocks
      assertThat(fixture.sourceRequests).hasValue(3);
      assertThat(fixture.count(CacheCounter.MISS_BYTES)).isEqualTo(LENGTH - 10);
      assertThat(fixture.service.status(fixture.version, 0, 6).allCached(0, 6)).isTrue();

      ReadSession warm = fixture.session();
      assertThat(read(reader, warm, 0, LENGTH)).isEqualTo(fixture.data);
      assertThat(fixture.sourceRequests).hasValue(3);
      assertThat(fixture.count(CacheCounter.HIT_BYTES)).isEqualTo(LENGTH);
      assertThat(fixture.count(CacheCounter.HIT_BLOCKS)).isEqualTo(6);
      // past the end
      assertThat(reader.read(warm, LENGTH, ByteBuffer.allocate(1))).isEqualTo(-1);
    }
  }

  @Test
  void theServiceCountsTheBlocksAStreamReadFromTheCacheNotTheStatusWindowAhead() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      CountingMetadataService counting = new CountingMetadataService(fixture.service);
      BlockReader reader = new BlockReader(ReadFixture.config(fixture.root, false, 2), counting, fixture.store, DIRECT, DIRECT);
      ReadSession cold = fixture.session();
      read(reader, cold, 0, LENGTH);
      reader.close(cold);
      long accessed = fixture.service.insight().workingSet().accessedBytes();
      long hits = fixture.service.insight().tables().get(0).hitBlocks();

      // block 1 (in two small reads), block 4, block 0: the reader asks about all 6 blocks once, and reads three of them
      ReadSession warm = fixture.session();
      int asked = counting.statusCalls.get();
      assertThat(read(reader, warm, BLOCK + 10, BLOCK + 100)).isEqualTo(fixture.bytes(BLOCK + 10, BLOCK + 100));
      assertThat(read(reader, warm, BLOCK + 100, 2L * BLOCK - 10)).isEqualTo(fixture.bytes(BLOCK + 100, 2L * BLOCK - 10));
      assertThat(read(reader, warm, 4L * BLOCK, 4L * BLOCK + 10)).isEqualTo(fixture.bytes(4L * BLOCK, 4L * BLOCK + 10));
      assertThat(read(reader, warm, 5, 10)).isEqualTo(fixture.bytes(5, 10));
      assertThat(counting.statusCalls.get() - asked).as("one status, of the whole small object, answers all four reads").isEqualTo(1);
      assertThat(fixture.service.insight().tables().get(0).hitBlocks()).as("nothing counted until reported").isEqualTo(hits);

      reader.close(warm);
      assertThat(fixture.service.insight().workingSet().accessedBytes() - accessed).isEqualTo(3L * BLOCK);
      assertThat(fixture.service.insight().tables().get(0).hitBlocks() - hits).isEqualTo(3);
      reader.close(warm);
      assertThat(fixture.service.insight().tables().get(0).hitBlocks() - hits).as("reported once").isEqualTo(3);
    }
  }

  @Test
  void aCorruptBlockIsFetchedAgainAndCachedAgain() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      BlockReader reader = reader(fixture);
      read(reader, fixture.session(), 0, LENGTH);
      BlockRange status = fixture.service.status(fixture.version, 0, 6);
      try (FileChannel file = fixture.openDataFile(Path.of(status.dataFile()))) {
        file.write(ByteBuffer.wrap(new byte[] {(byte) ~fixture.data[2 * BLOCK]}), 2L * BLOCK);
      }
      int before = fixture.sourceRequests.get();

      assertThat(read(reader, fixture.session(), 0, LENGTH)).isEqualTo(fixture.data);
      assertThat(fixture.count(CacheCounter.CHECKSUM_FAILURES)).isEqualTo(1);
      // only the bad block came from the source, through the fetch path: it is cached again
      assertThat(fixture.sourceRequests.get() - before).isEqualTo(1);
      assertThat(fixture.count(CacheCounter.MISS_BYTES)).isEqualTo(LENGTH + BLOCK);
      assertThat(fixture.service.status(fixture.version, 0, 6).allCached(0, 6)).isTrue();
    }
  }

  @Test
  void blocksTheCacheHasNoRoomForAreReadFromTheSourceAndCounted() throws IOException {
    // a disk too small for any block of this object
    try (ReadFixture fixture = new ReadFixture(root, LENGTH, ChannelOpener.DEFAULT, BLOCK / 2)) {
      BlockReader reader = reader(fixture);
      assertThat(read(reader, fixture.session(), 100, LENGTH - 100)).isEqualTo(fixture.bytes(100, LENGTH - 100));
      assertThat(fixture.count(CacheCounter.FALLBACK_NO_SPACE)).isEqualTo(6);
      assertThat(fixture.count(CacheCounter.SOURCE_REQUESTS)).isEqualTo(1);
      assertThat(fixture.count(CacheCounter.MISS_BYTES)).isZero();
    }
  }

  @Test
  void aWarmSequentialStreamReadsAheadNothingAndAsksOncePerStatusWindow() throws IOException {
    long length = 200L * BLOCK;
    try (ReadFixture fixture = new ReadFixture(root, length, ChannelOpener.DEFAULT, 256L * BLOCK)) {
      read(reader(fixture), fixture.session(), 0, length);
      assertThat(fixture.service.status(fixture.version, 0, 200).allCached(0, 200)).isTrue();
      CountingMetadataService counting = new CountingMetadataService(fixture.service);
      Configuration conf = new Configuration(false);
      conf.set(CacheKeys.DIRS.name(), root.toString());
      conf.set(CacheKeys.BLOCK_SIZE.name(), Integer.toString(BLOCK));
      conf.set(CacheKeys.FETCH_CHUNK.name(), Integer.toString(2 * BLOCK));
      conf.set(CacheKeys.READAHEAD_MAX.name(), Integer.toString(8 * BLOCK));
      // the parts under test alone: no tail or whole-object extent, no tails in memory (FetchPlanTest has them)
      conf.set(CacheKeys.FETCH_TAIL.name(), "0");
      conf.set(CacheKeys.FETCH_WHOLE_MAX.name(), "0");
      conf.set(CacheKeys.TAIL_MEMORY.name(), "0");
      BlockReader readingAhead = new BlockReader(CacheConfig.from(conf), counting, fixture.store, DIRECT, DIRECT);
      ReadSession s = fixture.session();

      for (long at = 0; at < length; at += BLOCK) {
        assertThat(read(readingAhead, s, at, at + BLOCK)).isEqualTo(fixture.bytes(at, at + BLOCK));
      }
      // read-ahead of cached blocks makes no acquire round trip (and the first read, no evidence yet, reads nothing
      // ahead); the status is renewed when the read-ahead reaches past it: 200 blocks / (64 - 8) per answer
      assertThat(counting.acquireCalls).hasValue(0);
      assertThat(counting.statusCalls).hasValueLessThanOrEqualTo(4);
      assertThat(fixture.count(CacheCounter.READAHEAD_BLOCKS)).isZero();
      assertThat(fixture.sourceRequests).hasValue(100);
    }
  }
}
