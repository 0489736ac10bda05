package io.rubix.core.read.fetch;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.ArrivingBytes;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One block this JVM is fetching from the source, whose bytes can be taken as they arrive, before the
 * block is written and committed: what an owner sends a peer while it fills the block
 * ({@link io.rubix.core.read.fill.BlockFiller#arriving}). The bytes are the source's bytes of the version the fetch checked;
 * they are not checksummed yet (the sender computes the CRC32C of what it sends). Thread-safe.
 */
public final class ArrivingBlock {
  private final ArrivingBytes run;
  private final int offset;
  private final int length;

  ArrivingBlock(ArrivingBytes run, int offset, int length) {
    this.run = requireNonNull(run, "run is null");
    if (offset < 0 || length <= 0) {
      throw new IllegalArgumentException("Bad block at " + offset + " of " + length + " bytes");
    }
    this.offset = offset;
    this.length = length;
  }

  public int length() {
    return length;
  }

  /**
   * Waits until more than {@code have} bytes of the block have arrived and returns how many have (at
   * most {@link #length}); {@code have} when {@code timeoutNanos} passed first.
   *
   * @throws IOException when the fetch failed before those bytes arrived
   */
  public int await(int have, long timeoutNanos) throws IOException, InterruptedException {
    if (have >= length) {
      return length;
    }
    int arrived = run.await(offset + have, timeoutNanos) - offset;
    return Math.max(have, Math.min(length, arrived));
  }

  /** Bytes {@code [from, to)} of the block, read-only; they must have arrived ({@link #await}). */
  public ByteBuffer bytes(int from, int to) {
    if (from < 0 || to > length || from > to) {
      throw new IndexOutOfBoundsException("Bytes [" + from + ", " + to + ") of a block of " + length);
    }
    return ByteBuffer.wrap(run.bytes(), offset + from, to - from).slice().asReadOnlyBuffer();
  }
}
