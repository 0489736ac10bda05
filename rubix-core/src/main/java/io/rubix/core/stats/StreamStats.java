package io.rubix.core.stats;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters of one stream, also added to its file system's {@link CacheStats}. Thread-safe. Hadoop 3
 * streams expose them as IOStatistics ({@link StreamIOStatistics}); this class itself needs no
 * Hadoop, so it works on any Hadoop version.
 */
public final class StreamStats {
  private static final CacheCounter[] COUNTERS = CacheCounter.values();

  private final CacheStats fileSystemStats;
  private final AtomicLongArray counters = new AtomicLongArray(COUNTERS.length);

  public StreamStats(CacheStats fileSystemStats) {
    this.fileSystemStats = requireNonNull(fileSystemStats, "fileSystemStats is null");
  }

  public void add(CacheCounter counter, long value) {
    if (value != 0) {
      counters.addAndGet(counter.ordinal(), value);
      fileSystemStats.add(counter, value);
    }
  }

  public long get(CacheCounter counter) {
    return counters.get(counter.ordinal());
  }
}
