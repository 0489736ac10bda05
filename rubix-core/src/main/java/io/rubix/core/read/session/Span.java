package io.rubix.core.read.session;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;

/**
 * Bytes {@code [position, position + buffer.remaining())} of an object and the part of a caller's
 * buffer they go to: the one place the read path turns block numbers and object positions into
 * slices of that buffer (instead of {@code from}/{@code to}/{@code slice} arithmetic at every step).
 *
 * <p>{@code buffer} is a slice starting at index 0 of its own, so a position {@code p} of the object
 * is index {@code p - position} in it. Writers use absolute puts (chunks of one read fill disjoint
 * spans in parallel) or hand the slice to a call that fills it; a span is not reused after that.
 */
public record Span(long position, ByteBuffer buffer) {
  public Span {
    requireNonNull(buffer, "buffer is null");
    if (position < 0 || buffer.position() != 0) {
      throw new IllegalArgumentException("Invalid span at " + position + " over " + buffer);
    }
  }

  public int length() {
    return buffer.remaining();
  }

  /** The position after the last byte. */
  public long end() {
    return position + buffer.remaining();
  }

  /** The bytes {@code [from, to)} of this span (object positions, inside it). */
  public Span range(long from, long to) {
    if (from < position || to > end() || to < from) {
      throw new IndexOutOfBoundsException("[" + from + ", " + to + ") is not inside [" + position + ", " + end() + ")");
    }
    return new Span(from, buffer.slice((int) (from - position), (int) (to - from)));
  }

  /** The bytes from {@code from} (an object position inside this span) to its end. */
  Span from(long from) {
    return range(from, end());
  }

  /** The bytes of this span in blocks {@code [first, end)} of {@code blockSize} bytes (empty when they do not meet). */
  public Span blocks(int first, int end, int blockSize) {
    long from = Math.max(position, (long) first * blockSize);
    long to = Math.min(end(), (long) end * blockSize);
    return range(from, Math.max(from, to));
  }

  /** The first block this span touches. */
  public int firstBlock(int blockSize) {
    return (int) (position / blockSize);
  }

  /** The block after the last one this span touches ({@link #firstBlock} when empty). */
  public int endBlock(int blockSize) {
    return length() == 0 ? firstBlock(blockSize) : (int) ((end() - 1) / blockSize) + 1;
  }

  /** Copies {@code bytes[offset, offset + length())} into this span, without moving the buffer's position. */
  public void put(byte[] bytes, int offset) {
    buffer.put(0, bytes, offset, length());
  }
}
