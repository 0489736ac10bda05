package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.util.List;
import java.util.function.Consumer;

/** Reads blocks of splits this node does not own from the nodes that own them. */
public interface PeerReader {
  /**
   * One verified block of a version received from a peer: {@code bytes[offset, offset + length)} are
   * block {@code block}; {@code fromSource} when the owner did not serve it and the reader read it
   * from the source in its place (read-ahead does, so that the reads after it find it in memory).
   */
  record PeerBlock(ObjectVersion version, int block, byte[] bytes, int offset, int length, boolean fromSource) {
    public PeerBlock {
      requireNonNull(version, "version is null");
      requireNonNull(bytes, "bytes is null");
    }

    /** A block received from its owner. */
    public PeerBlock(ObjectVersion version, int block, byte[] bytes, int offset, int length) {
      this(version, block, bytes, offset, length, false);
    }
  }

  /**
   * What one {@link #fetch} received.
   *
   * @param served the blocks received, consecutive from the first one asked for (possibly none)
   * @param end the end of the blocks this answer covers: blocks after {@code served} and before
   *     {@code end} were not served by a peer (read them from the source); the caller continues at {@code end}
   * @param failed whether a peer was asked and did not serve them all (down, refused, not cached there, stale)
   */
  record Transfer(List<PeerBlock> served, int end, boolean failed) {
    public Transfer {
      served = List.copyOf(served);
    }
  }

  /**
   * Fetches a leading run of blocks {@code [first, end)} of {@code version} from one owner (the owner
   * of {@code first}), every block verified against its CRC32C (and, with a secret, its response MAC)
   * and handed to {@code received} as soon as it is, in order, before the fetch returns. Covers at
   * least block {@code first}. Never throws: blocks not served are read from the source by the caller.
   */
  Transfer fetch(ObjectVersion version, int blockSize, int first, int end, Consumer<PeerBlock> received);

  /** {@link #fetch(ObjectVersion, int, int, int, Consumer)}, taking the blocks from the answer only. */
  default Transfer fetch(ObjectVersion version, int blockSize, int first, int end) {
    return fetch(version, blockSize, first, end, block -> { });
  }

  /**
   * Blocks {@code [first, end)} of {@code version}, which this node owns, from the node that owned them
   * before it joined ({@link io.rubix.core.cluster.ClusterLocality#previousOwner}), only those cached
   * there (it fetches nothing for this): a leading run, verified like {@link #fetch}, up to the end of the
   * first block's split. Nothing while no such node is known or after {@code rubix.network.transfer.handoff.window}.
   * Never throws.
   */
  default Transfer handOff(ObjectVersion version, int blockSize, int first, int end) {
    return new Transfer(List.of(), end, false);
  }

  /** Whether {@link #handOff} may still serve anything (within {@code rubix.network.transfer.handoff.window}). */
  default boolean handsOff() {
    return false;
  }

  /** How long a caller may wait for a fetch another thread runs: the longest one fetch can take. */
  long maxFetchMillis();

  /** How far ahead of a sequential reader blocks owned elsewhere are fetched from their owners, in bytes (0: no read-ahead). */
  default long readAheadBytes() {
    return 0;
  }
}
