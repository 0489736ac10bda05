package io.rubix.core.read;

/**
 * Which blocks a miss fetches along with the ones the reader asked for, in the same request: all of an
 * object up to {@code wholeMax} bytes (its first miss fetches it whole), and the last {@code tailBytes} of
 * any object when the miss reaches into them (a columnar reader's footer: ORC and Parquet read a guess at
 * the footer first and the rest of it next, which then needs no round trip of its own).
 *
 * <p>The extent is contiguous with the miss, so the blocks it adds join the miss's ranged GET instead of
 * making their own. It is only a wish: blocks already cached, or being fetched by someone else, are not
 * fetched again (the metadata service's answer decides), and blocks this node does not cache are left out
 * by the caller.
 */
record FetchExtent(int blockSize, long tailBytes, long wholeMax) {
  /** The first block to fetch for a miss of blocks {@code [first, end)} of an object of {@code length} bytes. */
  int from(long length, int first, int end) {
    if (length <= wholeMax) {
      return 0;
    }
    return reachesTail(length, end) ? Math.min(first, (int) ((length - tailBytes) / blockSize)) : first;
  }

  /** The block after the last one to fetch for a miss of blocks {@code [first, end)}. */
  int to(long length, int first, int end) {
    if (length <= wholeMax || reachesTail(length, end)) {
      return (int) ((length + blockSize - 1) / blockSize);
    }
    return end;
  }

  private boolean reachesTail(long length, int end) {
    return tailBytes > 0 && (long) end * blockSize > length - tailBytes;
  }
}
