package io.rubix.core.read.session;

import java.util.function.IntPredicate;

/**
 * Runs of consecutive blocks that share a key: the one place that splits a range of blocks into runs,
 * which the read path does to every range it serves (cached or not, admitted here or not, the state a
 * lease gave each block, granted or not). A run starts at a given block, never crosses the range's
 * end and, when asked, holds at most a given number of blocks. Stateless; allocates nothing.
 */
public final class BlockRuns {
  /** A block's key: consecutive blocks with equal keys belong to one run. */
  @FunctionalInterface
  public interface Key {
    int of(int block);
  }

  /** What is done with each run of blocks that all pass a test or all fail it. */
  @FunctionalInterface
  public interface Split<E extends Exception> {
    void run(int first, int end, boolean passes) throws E;
  }

  /** What is done with each run of blocks that share a key. */
  @FunctionalInterface
  public interface Keyed<E extends Exception> {
    void run(int first, int end, int key) throws E;
  }

  private BlockRuns() {}

  /** Hands each run of {@code [first, end)} whose blocks all pass {@code test} or all fail it to {@code split}, in order. */
  public static <E extends Exception> void split(int first, int end, IntPredicate test, Split<E> split) throws E {
    for (int b = first; b < end; ) {
      boolean passes = test.test(b);
      int runEnd = end(b, end, x -> test.test(x) ? 1 : 0);
      split.run(b, runEnd, passes);
      b = runEnd;
    }
  }

  /** Hands each run of {@code [first, end)} whose blocks share a {@code key} to {@code keyed}, in order. */
  public static <E extends Exception> void byKey(int first, int end, Key key, Keyed<E> keyed) throws E {
    for (int b = first; b < end; ) {
      int runKey = key.of(b);
      int runEnd = end(b, end, key);
      keyed.run(b, runEnd, runKey);
      b = runEnd;
    }
  }

  /** The end of the run that starts at {@code first}: the first block of {@code (first, end)} whose key differs from {@code first}'s, else {@code end}. */
  static int end(int first, int end, Key key) {
    return end(first, end, Integer.MAX_VALUE, key);
  }

  /** {@link #end(int, int, Key)}, the run holding at most {@code maxBlocks} blocks. */
  public static int end(int first, int end, int maxBlocks, Key key) {
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
