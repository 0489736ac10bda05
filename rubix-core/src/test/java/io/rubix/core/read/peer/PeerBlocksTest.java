package io.rubix.core.read.peer;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.peer.PeerReader;
import io.rubix.core.read.session.Admission;
import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerBlocksTest {
  /** Unserved blocks read from the source by a reader that holds nothing (each read reads its own bytes). */
  private static final OwnedElsewhere.Unserved FROM_SOURCE = OwnedElsewhere.fromSource(new SourceReads(BLOCK, 1, Runnable::run));
  private static final long LENGTH = 6L * BLOCK;
  /** This node owns nothing: every block is another node's. */
  private static final Admission NOTHING = new Admission((path, offset) -> false, BLOCK);

  @TempDir
  Path root;

  /** Owners that hold the blocks in {@code held} and serve leading runs of them, as {@link PeerReader#fetch} promises. */
  private static final class FakeOwners implements PeerReader {
    private final byte[] data;
    private final Set<Integer> held;
    private final long readAheadBytes;
    final AtomicInteger fetches = new AtomicInteger();

    FakeOwners(byte[] data, Set<Integer> held, long readAheadBytes) {
      this.data = data;
      this.held = held;
      this.readAheadBytes = readAheadBytes;
    }

    @Override
    public Transfer fetch(ObjectVersion version, int blockSize, int first, int end, Consumer<PeerBlock> received) {
      fetches.incrementAndGet();
      List<PeerBlock> served = new ArrayList<>();
      for (int b = first; b < end && held.contains(b); b++) {
        int length = version.blockLength(b, blockSize);
        // a block inside a larger buffer, at an offset, as a transfer receives it
        byte[] bytes = new byte[length + 10];
        System.arraycopy(data, b * blockSize, bytes, 10, length);
        served.add(new PeerBlock(version, b, bytes, 10, length));
        received.accept(served.get(served.size() - 1));
      }
      return served.isEmpty() ? new Transfer(served, first + 1, true) : new Transfer(served, first + served.size(), false);
    }

    @Override
    public long maxFetchMillis() {
      return 5000;
    }

    @Override
    public long readAheadBytes() {
      return readAheadBytes;
    }
  }

  private static Span span(long from, long to) {
    return new Span(from, ByteBuffer.allocate((int) (to - from)));
  }

  @Test
  void blocksComeFromTheirOwnersAndEachGapFromOneSourceRead() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      FakeOwners owners = new FakeOwners(fixture.data, Set.of(0, 1, 4), 0);
      PeerBlocks peers = new PeerBlocks(owners, BLOCK, 4, NOTHING, Runnable::run);
      Span span = span(100, LENGTH - 50);

      peers.read(fixture.session(), 0, 6, span, FROM_SOURCE);
      assertThat(span.buffer().array()).isEqualTo(fixture.bytes(100, LENGTH - 50));
      // gaps [2, 4) and [5, 6): one source request each
      assertThat(fixture.sourceRequests).hasValue(2);
      assertThat(fixture.count(CacheCounter.PEER_BYTES)).isEqualTo(3L * BLOCK - 100);
      assertThat(fixture.count(CacheCounter.NON_OWNER_SOURCE_BYTES)).isEqualTo(3L * BLOCK - 50);
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).isEqualTo(3L * BLOCK - 50);
      // one per chunk ([0, 4) and [4, 6)) in which a peer failed to serve some block
      assertThat(fixture.count(CacheCounter.FALLBACK_PEER)).isEqualTo(2);
    }
  }

  @Test
  void smallReadsInsideTheLastReceivedBlockNeedNoSecondTransfer() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      FakeOwners owners = new FakeOwners(fixture.data, Set.of(0, 1, 2, 3, 4, 5), 0);
      PeerBlocks peers = new PeerBlocks(owners, BLOCK, 1, NOTHING, Runnable::run);
      ReadSession s = fixture.session();

      peers.read(s, 3, 4, span(3L * BLOCK, 3L * BLOCK + 10), FROM_SOURCE);
      assertThat(owners.fetches).hasValue(1);
      Span again = span(3L * BLOCK + 10, 3L * BLOCK + 500);
      peers.read(s, 3, 4, again, FROM_SOURCE);
      assertThat(again.buffer().array()).isEqualTo(fixture.bytes(3L * BLOCK + 10, 3L * BLOCK + 500));
      assertThat(owners.fetches).hasValue(1);

      // unbuffer forgets it
      peers.forget(s);
      peers.read(s, 3, 4, span(3L * BLOCK, 3L * BLOCK + 10), FROM_SOURCE);
      assertThat(owners.fetches).hasValue(2);
      assertThat(fixture.sourceRequests).hasValue(0);
    }
  }

  @Test
  void aSequentialStreamReceivesTheBlocksAheadInTheBackgroundAndReadsThemWithoutAskingAgain() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      FakeOwners owners = new FakeOwners(fixture.data, Set.of(0, 1, 2, 3, 4, 5), 4L * BLOCK);
      Queue<Runnable> queued = new ArrayDeque<>();
      Executor executor = queued::add;
      PeerBlocks peers = new PeerBlocks(owners, BLOCK, 2, NOTHING, executor);
      ReadSession s = fixture.session();

      // the stream read block 0 sequentially from the start, in two reads (one alone is no evidence)
      assertThat(s.noteRead(0, BLOCK / 2, BLOCK, 16, 2)).isNull();
      assertThat(s.noteRead(BLOCK / 2, BLOCK / 2, BLOCK, 16, 2)).isNotNull();
      peers.readAhead(s, 0, 0);
      // blocks [1, 5) and the read's own block 0, in the first request: three chunk tasks, nothing asked in the reader's thread
      assertThat(fixture.count(CacheCounter.PEER_READAHEAD_BLOCKS)).isEqualTo(5);
      assertThat(queued).hasSize(3);
      assertThat(owners.fetches).hasValue(0);
      while (!queued.isEmpty()) {
        queued.poll().run();
      }
      assertThat(owners.fetches).hasValue(3);

      Span span = span(0, 5L * BLOCK);
      peers.read(s, 0, 5, span, FROM_SOURCE);
      assertThat(span.buffer().array()).isEqualTo(fixture.bytes(0, 5L * BLOCK));
      assertThat(owners.fetches).hasValue(3);
      assertThat(fixture.count(CacheCounter.PEER_BYTES)).isEqualTo(5L * BLOCK);
      assertThat(fixture.sourceRequests).hasValue(0);
    }
  }

  @Test
  void blocksThisNodeAdmitsAreNeverReadAheadFromOwners() {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      FakeOwners owners = new FakeOwners(fixture.data, Set.of(0, 1, 2, 3, 4, 5), 4L * BLOCK);
      Queue<Runnable> queued = new ArrayDeque<>();
      // this node caches blocks 2 and 3 itself
      Admission some = new Admission((path, offset) -> offset == 2L * BLOCK || offset == 3L * BLOCK, BLOCK);
      PeerBlocks peers = new PeerBlocks(owners, BLOCK, 4, some, queued::add);
      ReadSession s = fixture.session();

      assertThat(s.noteRead(0, BLOCK / 2, BLOCK, 16, 4)).isNull();
      assertThat(s.noteRead(BLOCK / 2, BLOCK / 2, BLOCK, 16, 4)).isNotNull();
      peers.readAhead(s, 0, 0);
      assertThat(s.peerAheadBlocks()).containsExactlyInAnyOrder(0, 1, 4);
      assertThat(fixture.count(CacheCounter.PEER_READAHEAD_BLOCKS)).isEqualTo(3);
    }
  }

  @Test
  void blocksAnOwnerDoesNotServeAreReadAheadFromTheSourceInOneRequestAndSmallReadsFindThemInMemory() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      // the owner serves block 0 and refuses the others
      FakeOwners owners = new FakeOwners(fixture.data, Set.of(0), 4L * BLOCK);
      Queue<Runnable> queued = new ArrayDeque<>();
      PeerBlocks peers = new PeerBlocks(owners, BLOCK, 4, NOTHING, queued::add);
      ReadSession s = fixture.session();

      assertThat(s.noteRead(0, BLOCK / 2, BLOCK, 16, 4)).isNull();
      assertThat(s.noteRead(BLOCK / 2, BLOCK / 2, BLOCK, 16, 4)).isNotNull();
      peers.readAhead(s, 0, 0);
      while (!queued.isEmpty()) {
        queued.poll().run();
      }
      // [0, 4): block 0 served, [1, 4) one source request; [4, 5): one source request
      assertThat(fixture.sourceRequests).hasValue(2);
      assertThat(fixture.count(CacheCounter.FALLBACK_PEER)).isEqualTo(2);
      for (long at = 0; at < 5L * BLOCK; at += 1000) {
        long to = Math.min(5L * BLOCK, at + 1000);
        Span span = span(at, to);
        peers.read(s, (int) (at / BLOCK), (int) ((to - 1) / BLOCK) + 1, span, FROM_SOURCE);
        assertThat(span.buffer().array()).isEqualTo(fixture.bytes(at, to));
      }
      assertThat(fixture.sourceRequests).as("small reads make no source request of their own").hasValue(2);
      assertThat(fixture.count(CacheCounter.PEER_BYTES)).isEqualTo(BLOCK);
      assertThat(fixture.count(CacheCounter.NON_OWNER_SOURCE_BYTES)).isEqualTo(4L * BLOCK);
    }
  }
}
