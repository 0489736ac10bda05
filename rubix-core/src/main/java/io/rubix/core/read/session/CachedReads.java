package io.rubix.core.read.session;

import io.rubix.spi.metadata.CacheMetadataService;
import java.util.Arrays;

/**
 * The blocks one stream read from the cache since it last reported them (the service's statistics
 * count them: {@link CacheMetadataService#reportReads}). A block read again right after itself is kept
 * once, so a reader of small buffers counts one read per block, as one of whole blocks does. Not
 * thread-safe: {@link ReadSession} guards it.
 */
final class CachedReads {
  /** Blocks kept before a report is due: one report per this many blocks, and one when the stream ends. */
  static final int REPORT_BLOCKS = 256;

  private int[] blocks = new int[8];
  private int count;

  /** Keeps {@code block}; true when {@link #REPORT_BLOCKS} are kept. */
  boolean add(int block) {
    if (count > 0 && blocks[count - 1] == block) {
      return false;
    }
    if (count == blocks.length) {
      blocks = Arrays.copyOf(blocks, Math.min(REPORT_BLOCKS, 2 * count));
    }
    blocks[count++] = block;
    return count == REPORT_BLOCKS;
  }

  /** The blocks kept, oldest first, and forgets them. */
  int[] take() {
    int[] taken = Arrays.copyOf(blocks, count);
    count = 0;
    return taken;
  }
}
