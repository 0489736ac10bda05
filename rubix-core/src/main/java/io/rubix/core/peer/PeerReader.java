package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.util.List;

/** Reads blocks of splits this node does not own from the nodes that own them. */
public interface PeerReader {
  /** One verified block of a version received from a peer: {@code bytes[offset, offset + length)} are block {@code block}. */
  record PeerBlock(ObjectVersion version, int block, byte[] bytes, int offset, int length) {
    public PeerBlock {
      requireNonNull(version, "version is null");
      requireNonNull(bytes, "bytes is null");
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
   * of {@code first}), every block verified against its CRC32C. Covers at least block {@code first}.
   * Never throws: blocks not served are read from the source by the caller.
   */
  Transfer fetch(ObjectVersion version, int blockSize, int first, int end);

  /** How long a caller may wait for a fetch another thread runs: the longest one fetch can take. */
  long maxFetchMillis();

  /** How far ahead of a sequential reader blocks owned elsewhere are fetched from their owners, in bytes (0: no read-ahead). */
  default long readAheadBytes() {
    return 0;
  }
}
