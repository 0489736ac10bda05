package io.rubix.core.read;

import org.apache.hadoop.fs.FileSystem;

/**
 * Tells a file system's Hadoop {@link FileSystem.Statistics} the bytes a stream returned to its reader,
 * in the reader's thread: engines take their input metrics from there (Spark sums every file system's
 * bytes read by the task's thread). Bytes a source stream of the wrapped file system read in the same
 * thread and counted itself (a miss fetched in the reader's thread) are not counted again, so each byte
 * returned counts once whether it came from the cache, a peer, memory or the store.
 *
 * <p>Design: immutable; the statistics are thread-safe and keep one record per thread. Hadoop 2.7 has
 * every call it makes.
 */
public final class InputBytes {
  /** Counts nothing. */
  public static final InputBytes NONE = new InputBytes(null);

  private final FileSystem.Statistics statistics;

  private InputBytes(FileSystem.Statistics statistics) {
    this.statistics = statistics;
  }

  /** Counting into {@code statistics} (a file system's {@code statistics} field); {@link #NONE} when it is null. */
  public static InputBytes of(FileSystem.Statistics statistics) {
    return statistics == null ? NONE : new InputBytes(statistics);
  }

  /** What this thread's record says now: pass it to {@link #returned} after the read. */
  long mark() {
    return statistics == null ? 0 : statistics.getThreadStatistics().getBytesRead();
  }

  /** A read that began at {@code mark} returned {@code bytes}: counts those the source did not count meanwhile. */
  void returned(long mark, long bytes) {
    if (statistics == null || bytes <= 0) {
      return;
    }
    long bySource = statistics.getThreadStatistics().getBytesRead() - mark;
    if (bytes > bySource) {
      statistics.incrementBytesRead(bytes - bySource);
    }
  }
}
