package io.rubix.core.read.session;

import org.apache.hadoop.fs.FileSystem;

/**
 * Tells a file system's Hadoop {@link FileSystem.Statistics} the bytes a stream returned to its reader,
 * in the reader's thread: engines take their input metrics from there (Spark sums every file system's
 * bytes read by the task's thread). A read adds exactly the bytes it returned, whether they came from
 * the cache, a peer, memory or the store: what a source stream of the wrapped file system counted in the
 * same thread meanwhile (a miss fetched in the reader's thread: whole blocks, read-ahead) is taken back,
 * so a cold task reports the bytes the scan read, not the blocks the cache fetched.
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
  public long mark() {
    return statistics == null ? 0 : statistics.getThreadStatistics().getBytesRead();
  }

  /**
   * A vectored read asked for {@code bytes}, which other threads read: counted in the asking thread
   * (the task's), where engines look, when the read is asked for.
   */
  public void requested(long bytes) {
    if (statistics != null && bytes > 0) {
      statistics.incrementBytesRead(bytes);
    }
  }

  /** A read that began at {@code mark} returned {@code bytes} (0 or less: none): this thread's record gains exactly those. */
  public void returned(long mark, long bytes) {
    if (statistics == null) {
      return;
    }
    long bySource = statistics.getThreadStatistics().getBytesRead() - mark;
    long correction = Math.max(0, bytes) - bySource;
    if (correction != 0) {
      statistics.incrementBytesRead(correction);
    }
  }
}
