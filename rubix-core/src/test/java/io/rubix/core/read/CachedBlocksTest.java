package io.rubix.core.read;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.FaultyChannels;
import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachedBlocksTest {
  /** 4 blocks, the last one short. */
  private static final long LENGTH = 3L * BLOCK + 1000;

  @TempDir
  Path root;

  /** Caches every block of the fixture's object and returns their status. */
  private static BlockRange cacheAll(ReadFixture fixture) throws IOException {
    int blocks = fixture.version.blockCount(BLOCK);
    BlockRange lease = fixture.service.acquire(fixture.version, 0, blocks);
    int[] all = new int[blocks];
    int[] crcs = new int[blocks];
    for (int b = 0; b < blocks; b++) {
      all[b] = b;
      int length = fixture.version.blockLength(b, BLOCK);
      crcs[b] = fixture.store.write(Path.of(lease.dataFile()), fixture.version, b, ByteBuffer.wrap(fixture.data, b * BLOCK, length));
    }
    assertThat(fixture.service.commit(lease.leaseId(), all, crcs)).isEqualTo(blocks);
    BlockRange status = fixture.service.status(fixture.version, 0, blocks);
    assertThat(status.allCached(0, blocks)).isTrue();
    return status;
  }

  private static Span span(long from, long to) {
    return new Span(from, ByteBuffer.allocate((int) (to - from)));
  }

  private static byte[] bytes(Span span) {
    byte[] bytes = new byte[span.length()];
    span.buffer().duplicate().get(bytes);
    return bytes;
  }

  @Test
  void servesEveryBlockOfARunFromItsDataFileAndCountsHits() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      BlockRange status = cacheAll(fixture);
      CachedBlocks cached = new CachedBlocks(BLOCK, fixture.store, fixture.service, FailurePolicy.FALL_BACK);
      Span span = span(100, LENGTH - 10);

      assertThat(cached.read(fixture.session(), status, 0, 4, span)).isNull();
      assertThat(bytes(span)).isEqualTo(fixture.bytes(100, LENGTH - 10));
      assertThat(fixture.count(CacheCounter.HIT_BYTES)).isEqualTo(span.length());
      assertThat(fixture.count(CacheCounter.HIT_BLOCKS)).isEqualTo(4);
      assertThat(fixture.sourceRequests).hasValue(0);
    }
  }

  @Test
  void aCorruptBlockIsReportedAndReturnedAloneAndTheReadStopsThere() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      BlockRange status = cacheAll(fixture);
      try (FileChannel file = fixture.openDataFile(Path.of(status.dataFile()))) {
        file.write(ByteBuffer.wrap(new byte[] {(byte) ~fixture.data[BLOCK + 7]}), BLOCK + 7);
      }
      CachedBlocks cached = new CachedBlocks(BLOCK, fixture.store, fixture.service, FailurePolicy.FAIL);
      Span span = span(0, LENGTH);

      // strict mode does not fail on a checksum mismatch: the caller re-reads the block
      assertThat(cached.read(fixture.session(), status, 0, 4, span)).isEqualTo(new CachedBlocks.Unserved(1, 2));
      assertThat(bytes(span.blocks(0, 1, BLOCK))).isEqualTo(fixture.bytes(0, BLOCK));
      assertThat(fixture.count(CacheCounter.HIT_BLOCKS)).isEqualTo(1);
      assertThat(fixture.count(CacheCounter.CHECKSUM_FAILURES)).isEqualTo(1);
      assertThat(fixture.count(CacheCounter.FALLBACK_CHECKSUM)).isEqualTo(1);
      // reported: the service checked the block, found it bad and unpublished it; its neighbours stay
      BlockRange after = fixture.service.status(fixture.version, 0, 4);
      assertThat(after.state(1)).isEqualTo(BlockState.MISSING);
      assertThat(after.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(after.state(2)).isEqualTo(BlockState.CACHED);
    }
  }

  @Test
  void aDroppedDataFileReturnsTheRestOfTheRunEvenInStrictMode() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      BlockRange status = cacheAll(fixture);
      fixture.service.invalidate(fixture.version);
      CachedBlocks cached = new CachedBlocks(BLOCK, fixture.store, fixture.service, FailurePolicy.FAIL);

      assertThat(cached.read(fixture.session(), status, 1, 4, span(BLOCK + 5, LENGTH))).isEqualTo(new CachedBlocks.Unserved(1, 4));
      assertThat(fixture.count(CacheCounter.FALLBACK_CACHE_READ)).isEqualTo(1);
      assertThat(fixture.count(CacheCounter.HIT_BLOCKS)).isZero();
      assertThat(fixture.count(CacheCounter.CHECKSUM_FAILURES)).isZero();
    }
  }

  @Test
  void anUnreadableDiskFallsBackOneBlockAtATimeOrFailsInStrictMode() throws IOException {
    FaultyChannels channels = new FaultyChannels();
    try (ReadFixture fixture = new ReadFixture(root, LENGTH, channels)) {
      BlockRange status = cacheAll(fixture);
      channels.failReads = true;
      ReadSession s = fixture.session();

      CachedBlocks lenient = new CachedBlocks(BLOCK, fixture.store, fixture.service, FailurePolicy.FALL_BACK);
      assertThat(lenient.read(s, status, 2, 4, span(2L * BLOCK, LENGTH))).isEqualTo(new CachedBlocks.Unserved(2, 3));
      assertThat(fixture.count(CacheCounter.FALLBACK_CACHE_READ)).isEqualTo(1);

      CachedBlocks strict = new CachedBlocks(BLOCK, fixture.store, fixture.service, FailurePolicy.FAIL);
      assertThatThrownBy(() -> strict.read(s, status, 2, 4, span(2L * BLOCK, LENGTH)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("Input/output error");
      assertThat(fixture.count(CacheCounter.FALLBACK_CACHE_READ)).isEqualTo(2);
      // a disk failure is not corruption: the blocks stay published
      assertThat(fixture.service.status(fixture.version, 0, 4).allCached(0, 4)).isTrue();
    }
  }
}
