package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;

/** Per-stream state of the read path: what is read, from where, the last block status seen, read-ahead progress. */
final class ReadSession {
  final ObjectVersion version;
  final Source source;
  final StreamStats stats;
  final int blockCount;
  /** The last status answer, reused while it says the blocks a read needs are cached. */
  volatile BlockRange recentStatus;

  // @GuardedBy("this")
  private long lastReadEnd;
  // @GuardedBy("this")
  private int windowBlocks;
  // @GuardedBy("this")
  private int readAheadEnd;

  ReadSession(ObjectVersion version, Source source, StreamStats stats, int blockSize) {
    this.version = requireNonNull(version, "version is null");
    this.source = requireNonNull(source, "source is null");
    this.stats = requireNonNull(stats, "stats is null");
    this.blockCount = version.blockCount(blockSize);
  }

  /**
   * Records a read of {@code [position, position + length)} and returns the block range to read ahead,
   * as {@code {start, end}}, or null when nothing should be read ahead. Read-ahead follows reads that
   * continue where the previous one ended: its window starts at two blocks and doubles up to
   * {@code maxWindowBlocks}; new blocks are requested once the reader is within half a window of
   * the read-ahead end.
   */
  synchronized int[] noteRead(long position, int length, int blockSize, int maxWindowBlocks) {
    boolean sequential = position == lastReadEnd;
    lastReadEnd = position + length;
    if (!sequential || maxWindowBlocks <= 0) {
      windowBlocks = 0;
      readAheadEnd = 0;
      return null;
    }
    int lastBlock = (int) ((position + length - 1) / blockSize);
    if (readAheadEnd - lastBlock > windowBlocks / 2) {
      return null;
    }
    windowBlocks = windowBlocks == 0 ? Math.min(2, maxWindowBlocks) : Math.min(maxWindowBlocks, windowBlocks * 2);
    int start = Math.max(lastBlock + 1, readAheadEnd);
    int end = Math.min(blockCount, lastBlock + 1 + windowBlocks);
    if (start >= end) {
      return null;
    }
    readAheadEnd = end;
    return new int[] {start, end};
  }

  synchronized void resetReadAhead() {
    windowBlocks = 0;
    readAheadEnd = 0;
    lastReadEnd = -1;
  }
}
