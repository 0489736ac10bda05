package io.rubix.core.read;

/**
 * Runs of consecutive blocks that share a key: the one place that finds where such a run ends,
 * which the read path asks of every range it splits (cached or not, admitted here or not, the state
 * a lease gave each block, granted or not). A run starts at a given block, never crosses the range's
 * end and holds at most a given number of blocks. Stateless; allocates nothing.
 */
final class BlockRuns {
  /** A block's key: consecutive blocks with equal keys belong to one run. */
  @FunctionalInterface
  interface Key {
    int of(int block);
  }

  private BlockRuns() {}

  /** The end of the run that starts at {@code first}: the first block of {@code (first, end)} whose key differs from {@code first}'s, else {@code end}. */
  static int end(int first, int end, Key key) {
    return end(first, end, Integer.MAX_VALUE, key);
  }

  /** {@link #end(int, int, Key)}, the run holding at most {@code maxBlocks} blocks. */
  static int end(int first, int end, int maxBlocks, Key key) {
    if (first >= end || maxBlocks < 1) {
      throw new IllegalArgumentException("No run starts at " + first + " before " + end + " with at most " + maxBlocks + " blocks");
    }
    int runKey = key.of(first);
    int runEnd = first + 1;
    while (runEnd < end && runEnd - first < maxBlocks && key.of(runEnd) == runKey) {
      runEnd++;
    }
    return runEnd;
  }
}
