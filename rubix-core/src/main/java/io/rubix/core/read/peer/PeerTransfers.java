package io.rubix.core.read.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.peer.PeerReader;
import io.rubix.core.peer.PeerReader.PeerBlock;
import io.rubix.spi.ObjectVersion;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Peer transfers this JVM has in flight, by object version and block. A reader that needs a block
 * another thread is already receiving from its owner waits for that transfer instead of asking the
 * owner again; a block's entry lives from the claim until its transfer ends. A future completes with
 * the block, or with null when no peer served it (the reader then reads the source).
 *
 * <p>Ownership: one per {@link PeerBlocks}, its only user. Thread-safe: readers' threads and read-ahead
 * tasks claim, transfer and wait at once; it calls only the {@link PeerReader}.
 */
final class PeerTransfers {
  private record Key(ObjectVersion version, int block) {}

  private final PeerReader peers;
  private final ConcurrentHashMap<Key, CompletableFuture<PeerBlock>> inFlight = new ConcurrentHashMap<>();

  PeerTransfers(PeerReader peers) {
    this.peers = requireNonNull(peers, "peers is null");
  }

  /** Another thread's transfer of {@code block}, or null. */
  CompletableFuture<PeerBlock> inFlight(ObjectVersion version, int block) {
    return inFlight.get(new Key(version, block));
  }

  /**
   * Claims blocks {@code [first, end)} for a transfer by the caller, stopping before the first block
   * another thread has claimed; empty when that is {@code first}. The caller must {@link #transfer}
   * or {@link #abandon} what it claimed.
   */
  List<CompletableFuture<PeerBlock>> claim(ObjectVersion version, int first, int end) {
    List<CompletableFuture<PeerBlock>> claimed = new ArrayList<>(end - first);
    for (int b = first; b < end; b++) {
      CompletableFuture<PeerBlock> future = new CompletableFuture<>();
      if (inFlight.putIfAbsent(new Key(version, b), future) != null) {
        break;
      }
      claimed.add(future);
    }
    return claimed;
  }

  /**
   * Receives the claimed blocks {@code [first, first + claimed.size())} from their owners, completes
   * their futures and ends their claims.
   *
   * @return whether a peer was asked and failed to serve some of them
   */
  boolean transfer(ObjectVersion version, int blockSize, int first, List<CompletableFuture<PeerBlock>> claimed) {
    return transfer(version, blockSize, first, claimed, null);
  }

  /**
   * {@link #transfer}, reading the blocks no owner served with {@code unserved} (one call per run of them)
   * instead of leaving them to the readers; a block {@code unserved} does not give is left to them.
   */
  boolean transfer(ObjectVersion version, int blockSize, int first, List<CompletableFuture<PeerBlock>> claimed, Unserved unserved) {
    int end = first + claimed.size();
    boolean failed = false;
    try {
      int b = first;
      // the first block of a run no owner served, not read yet; -1 when there is none
      int gap = -1;
      while (b < end) {
        // a waiting reader takes each block as soon as it is in, not when the whole answer is
        PeerReader.Transfer transfer = peers.fetch(version, blockSize, b, end, block -> claimed.get(block.block() - first).complete(block));
        failed |= transfer.failed();
        for (PeerBlock block : transfer.served()) {
          claimed.get(block.block() - first).complete(block);
        }
        int servedEnd = b + transfer.served().size();
        int next = Math.max(b + 1, Math.min(end, transfer.end()));
        if (gap >= 0 && servedEnd > b) {
          readUnserved(unserved, claimed, first, gap, b);
          gap = -1;
        }
        if (servedEnd < next) {
          if (unserved == null) {
            readUnserved(null, claimed, first, servedEnd, next);
          } else if (gap < 0) {
            gap = servedEnd;
          }
        }
        b = next;
      }
      if (gap >= 0) {
        readUnserved(unserved, claimed, first, gap, end);
      }
    } finally {
      abandon(version, first, claimed);
    }
    return failed;
  }

  /** Completes the claimed blocks {@code [from, to)} with what {@code unserved} reads of them (with null when it is null or reads nothing). */
  private static void readUnserved(Unserved unserved, List<CompletableFuture<PeerBlock>> claimed, int first, int from, int to) {
    if (unserved != null) {
      for (PeerBlock block : unserved.read(from, to)) {
        claimed.get(block.block() - first).complete(block);
      }
    }
    for (int r = from; r < to; r++) {
      claimed.get(r - first).complete(null);
    }
  }

  /** Reads blocks {@code [first, end)}, which no owner served, from elsewhere; never throws (what it cannot read, it leaves out). */
  @FunctionalInterface
  interface Unserved {
    List<PeerBlock> read(int first, int end);
  }

  /** Ends claims without a transfer: their waiters read the source. */
  void abandon(ObjectVersion version, int first, List<CompletableFuture<PeerBlock>> claimed) {
    for (int i = 0; i < claimed.size(); i++) {
      claimed.get(i).complete(null);
      inFlight.remove(new Key(version, first + i), claimed.get(i));
    }
  }

  /** The block a transfer received, or null when it was not served or did not end within the longest a fetch takes. */
  PeerBlock await(CompletableFuture<PeerBlock> future, ObjectVersion version, int block) throws InterruptedIOException {
    try {
      return future.get(peers.maxFetchMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for block " + block + " of " + version.path() + " from its owner");
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }
}
