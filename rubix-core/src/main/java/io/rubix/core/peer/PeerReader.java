package io.rubix.core.peer;

import io.rubix.spi.ObjectVersion;
import java.nio.ByteBuffer;

/** Reads blocks of splits this node does not own from the nodes that own them. */
public interface PeerReader {
  /**
   * What a peer read served.
   *
   * @param bytes how many leading bytes of the destination it filled
   * @param failed whether a peer was tried and failed (or had not cached the blocks)
   * @param last the last whole block it received (verified), or null: callers keep it so that the
   *     next small read inside the same block needs no second transfer
   */
  record Result(long bytes, boolean failed, PeerBlock last) {
    public static final Result NONE = new Result(0, false, null);
  }

  /** One verified block of a version received from a peer: {@code bytes[0, length)} are block {@code block}. */
  record PeerBlock(ObjectVersion version, int block, byte[] bytes, int length) {}

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
