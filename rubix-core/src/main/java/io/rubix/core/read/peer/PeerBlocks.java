package io.rubix.core.read.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.peer.PeerReader;
import io.rubix.core.peer.PeerReader.PeerBlock;
import io.rubix.core.read.session.Admission;
import io.rubix.core.read.session.BlockRuns;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bytes of blocks this node does not cache, from the nodes that own them: blocks this stream read
 * ahead or another thread of this JVM is receiving are taken from that transfer, the others asked for
 * one chunk at a time; blocks no owner serves are read from the source: by the caller's {@link OwnedElsewhere.Unserved}
 * (the reader's own blocks, through {@link SourceReads}), or by read-ahead, one request per run of them
 * kept like received blocks, so a stream's small reads do not each make a source request when an owner
 * refuses a chunk.
 *
 * <p>Ownership: owns this JVM's {@link PeerTransfers} and, of a {@link ReadSession}, {@code lastPeerBlock}
 * and the entries it adds to {@code peerAhead} (the session's window bookkeeping drops passed ones).
 *
 * <p>Threads: reads run in the reader's thread; read-ahead transfers on the fetch executor. It may call
 * the {@link PeerReader} (through {@link PeerTransfers}), the admission and the session's source; never
 * the other read classes. Exists only when peer reads are on ({@link OwnedElsewhere#FROM_SOURCE} stands in
 * for it when they are off).
 */
public final class PeerBlocks implements OwnedElsewhere {
  private static final Logger LOG = LoggerFactory.getLogger(PeerBlocks.class);
  private final int blockSize;
  private final int chunkBlocks;
  private final int readAheadBlocks;
  private final Admission admission;
  private final Executor fetchExecutor;
  private final PeerTransfers transfers;

  public PeerBlocks(PeerReader peers, int blockSize, int chunkBlocks, Admission admission, Executor fetchExecutor) {
    this.transfers = new PeerTransfers(peers);
    this.blockSize = blockSize;
    this.chunkBlocks = chunkBlocks;
    this.readAheadBlocks = (int) Math.min(Integer.MAX_VALUE, peers.readAheadBytes() / blockSize);
    this.admission = requireNonNull(admission, "admission is null");
    this.fetchExecutor = requireNonNull(fetchExecutor, "fetchExecutor is null");
  }

  /**
   * Reads {@code span}, blocks {@code [first, end)}, when this node's metadata service failed (no
   * daemon on this node, as for a Spark driver, or a daemon down): blocks other nodes own still come
   * from their caches (from the source when they do not serve), this node's own from the source.
   */
  @Override
  public void readWithoutMetadata(ReadSession s, int first, int end, Span span, SourceReads source) throws IOException {
    BlockRuns.split(first, end, b -> admission.admits(s, b), (from, to, owned) -> {
      Span run = span.blocks(from, to, blockSize);
      if (owned) {
        source.read(s, run);
      } else {
        read(s, from, to, run, OwnedElsewhere.fromSource(source));
      }
    });
  }

  @Override
  public boolean fromOwners() {
    return true;
  }

  /**
   * Reads {@code span}, the bytes of blocks {@code [first, end)} this node does not cache, from their
   * owners, and each run of blocks no owner serves through {@code unserved} (the caller knows whether
   * this node caches them now: a failed transfer takes its owner out of the ring).
   */
  @Override
  public void read(ReadSession s, int first, int end, Span span, Unserved unserved) throws IOException {
    long position = span.position();
    long limit = span.end();
    int gapFrom = -1;
    long peerBytes = 0;
    long sourceBytes = 0;
    int b = first;
    while (b < end) {
      List<PeerBlock> received = new ArrayList<>();
      CompletableFuture<PeerBlock> known = s.peerBlock(b);
      boolean coalesced = false;
      if (known == null) {
        known = transfers.inFlight(s.version, b);
        coalesced = known != null;
      }
      int next;
      if (known != null) {
        PeerBlock block = transfers.await(known, s.version, b);
        received.add(block);
        if (coalesced && block != null) {
          s.stats.add(CacheCounter.PEER_COALESCED_BLOCKS, 1);
        }
        next = b + 1;
      } else {
        List<CompletableFuture<PeerBlock>> claimed = transfers.claim(s.version, b, Math.min(end, b + chunkBlocks));
        if (claimed.isEmpty()) {
          // another thread claimed block b just now: wait for its transfer
          continue;
        }
        if (transfers.transfer(s.version, blockSize, b, claimed)) {
          s.stats.add(CacheCounter.FALLBACK_PEER, 1);
        }
        for (CompletableFuture<PeerBlock> future : claimed) {
          received.add(future.getNow(null));
        }
        next = b + claimed.size();
      }
      for (int i = 0; i < received.size(); i++) {
        PeerBlock block = received.get(i);
        long blockStart = (long) (b + i) * blockSize;
        long from = Math.max(position, blockStart);
        long to = Math.min(limit, blockStart + blockSize);
        if (block == null) {
          if (gapFrom < 0) {
            gapFrom = b + i;
          }
          continue;
        }
        if (gapFrom >= 0) {
          unserved.read(s, gapFrom, b + i, span.blocks(gapFrom, b + i, blockSize));
          gapFrom = -1;
        }
        span.range(from, to).put(block.bytes(), block.offset() + (int) (from - blockStart));
        if (block.fromSource()) {
          sourceBytes += to - from;
        } else {
          peerBytes += to - from;
        }
        s.lastPeerBlock(block);
      }
      b = next;
    }
    if (gapFrom >= 0) {
      unserved.read(s, gapFrom, end, span.blocks(gapFrom, end, blockSize));
    }
    s.stats.add(CacheCounter.PEER_BYTES, peerBytes);
    s.stats.add(CacheCounter.NON_OWNER_SOURCE_BYTES, sourceBytes);
  }

  /**
   * After a read of blocks {@code [firstBlock, lastBlock]}: asks the session's window whether to read
   * ahead blocks owned elsewhere and, if so, starts receiving them.
   */
  @Override
  public void readAhead(ReadSession s, int firstBlock, int lastBlock) {
    int[] ahead = s.notePeerRead(firstBlock, lastBlock, readAheadBlocks, chunkBlocks);
    if (ahead != null) {
      // read-ahead starts before the read: the read's own blocks, when nothing has them yet, go in its first
      // request, so that an owner with fewer fill threads than requests does not answer the read-ahead first
      startReadAhead(s, ahead[0] == lastBlock + 1 ? firstBlock : ahead[0], ahead[1]);
    }
  }

  /** Starts fetching the blocks of {@code [first, end)} this node does not admit from their owners, one chunk per task, kept by the stream until read. */
  private void startReadAhead(ReadSession s, int first, int end) {
    int b = first;
    while (b < end) {
      if (admission.admits(s, b) || s.peerBlock(b) != null) {
        b++;
        continue;
      }
      CompletableFuture<PeerBlock> other = transfers.inFlight(s.version, b);
      if (other != null) {
        s.peerAhead(b, other);
        b++;
        continue;
      }
      int runEnd = BlockRuns.end(b, end, chunkBlocks, x -> admission.admits(s, x) || s.peerBlock(x) != null ? 0 : 1);
      List<CompletableFuture<PeerBlock>> claimed = transfers.claim(s.version, b, runEnd);
      if (claimed.isEmpty()) {
        continue;
      }
      for (int i = 0; i < claimed.size(); i++) {
        s.peerAhead(b + i, claimed.get(i));
      }
      int start = b;
      s.stats.add(CacheCounter.PEER_READAHEAD_BLOCKS, claimed.size());
      try {
        fetchExecutor.execute(() -> {
          // blocks the owner does not serve are read here too, one request per run: the stream's small reads then find them in memory
          if (transfers.transfer(s.version, blockSize, start, claimed, (from, to) -> fromSource(s, from, to))) {
            s.stats.add(CacheCounter.FALLBACK_PEER, 1);
          }
        });
      } catch (RejectedExecutionException e) {
        transfers.abandon(s.version, start, claimed);
      }
      b += claimed.size();
    }
  }

  /** Blocks {@code [first, end)} read from the source with one request; none when it fails (the reads then try themselves). */
  private List<PeerBlock> fromSource(ReadSession s, int first, int end) {
    long start = (long) first * blockSize;
    int length = (int) (Math.min((long) end * blockSize, s.version.length()) - start);
    byte[] bytes = new byte[length];
    try {
      s.source.readFully(start, bytes, 0, length);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Reading blocks [{}, {}) of {} that their owner did not serve failed", first, end, s.version.path(), e);
      return List.of();
    }
    s.stats.add(CacheCounter.SOURCE_REQUESTS, 1);
    s.stats.add(CacheCounter.SOURCE_BYTES, length);
    List<PeerBlock> blocks = new ArrayList<>(end - first);
    for (int b = first; b < end; b++) {
      int offset = (b - first) * blockSize;
      blocks.add(new PeerBlock(s.version, b, bytes, offset, s.version.blockLength(b, blockSize), true));
    }
    return blocks;
  }

  /** Forgets what the session received or is receiving from owners (a stream's {@code unbuffer}). */
  @Override
  public void forget(ReadSession s) {
    s.forgetPeerBlocks();
  }
}
