package io.rubix.core.read.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.peer.PeerReader;
import io.rubix.core.peer.PeerReader.PeerBlock;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.util.function.IntConsumer;

/**
 * The source of one object version on a node that joined the cluster recently: a range in a split this
 * node now owns is first asked of the split's previous owner ({@link
 * PeerReader#handOff}), which serves what it has cached; the rest comes from the store. The blocks it
 * hands off are verified like any peer's, and cached here as if fetched, so scale-out moves cached
 * blocks between nodes instead of fetching them from the store again.
 */
public final class HandoffSource implements Source {
  private final Source store;
  private final PeerReader peers;
  private final ObjectVersion version;
  private final int blockSize;
  private final CacheStats stats;

  /** {@code store}, asking {@code peers} first while they hand off ({@link PeerReader#handsOff}); {@code store} itself otherwise. */
  public static Source wrap(Source store, PeerReader peers, ObjectVersion version, int blockSize, CacheStats stats) {
    return peers != null && peers.handsOff() ? new HandoffSource(store, peers, version, blockSize, stats) : store;
  }

  private HandoffSource(Source store, PeerReader peers, ObjectVersion version, int blockSize, CacheStats stats) {
    this.store = requireNonNull(store, "store is null");
    this.peers = requireNonNull(peers, "peers is null");
    this.version = requireNonNull(version, "version is null");
    this.blockSize = blockSize;
    this.stats = requireNonNull(stats, "stats is null");
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    readFully(position, buffer, offset, length, n -> { });
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
    int handed = length > 0 && peers.handsOff() ? handOff(position, buffer, offset, length) : 0;
    if (handed > 0) {
      stats.add(CacheCounter.HANDOFF_BYTES, handed);
      arrived.accept(handed);
    }
    if (handed < length) {
      store.readFully(position + handed, buffer, offset + handed, length - handed, n -> arrived.accept(handed + n));
    }
  }

  /**
   * Copies the leading bytes of the range that previous owners serve into the buffer, split by split
   * (each split has its own previous owner), up to the first block not served; returns how many bytes.
   * A range need not start at a block (a footer): the blocks holding it are asked for.
   */
  private int handOff(long position, byte[] buffer, int offset, int length) {
    int end = (int) ((position + length + blockSize - 1) / blockSize);
    int b = (int) (position / blockSize);
    int copied = 0;
    while (b < end && copied < length) {
      PeerReader.Transfer transfer = peers.handOff(version, blockSize, b, end);
      for (PeerBlock block : transfer.served()) {
        long at = position + copied;
        int skip = (int) (at - (long) block.block() * blockSize);
        int n = Math.min(block.length() - skip, length - copied);
        System.arraycopy(block.bytes(), block.offset() + skip, buffer, offset + copied, n);
        copied += n;
      }
      if (transfer.served().size() < transfer.end() - b) {
        break;
      }
      b = transfer.end();
    }
    return copied;
  }
}
