package io.rubix.core.peer;

import io.rubix.spi.ObjectVersion;
import java.nio.ByteBuffer;

/** Reads blocks of splits this node does not own from the nodes that own them. */
public interface PeerReader {
  /** What a peer read served. */
  record Result(long bytes, boolean failed) {
    public static final Result NONE = new Result(0, false);
  }

  /**
   * Fills a prefix of {@code dst} (bytes {@code [position, position + dst.remaining())} of
   * {@code version}, inside blocks {@code [first, end)}) with bytes read from the blocks' owners,
   * every block verified against its CRC32C; stops at the first block no peer serves. Never throws:
   * the caller reads the rest from the source. Writes {@code dst} with absolute puts only.
   *
   * @return how many leading bytes it filled, and whether a peer was tried and failed
   */
  Result read(ObjectVersion version, int blockSize, int first, int end, long position, ByteBuffer dst);
}
