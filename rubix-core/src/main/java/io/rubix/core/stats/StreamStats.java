package io.rubix.core.stats;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsStore;

/** Counters of one stream, also added to its file system's {@link CacheStats}. Thread-safe. */
public final class StreamStats {
  private final CacheStats fileSystemStats;
  private final IOStatisticsStore store;

  public StreamStats(CacheStats fileSystemStats) {
    this.fileSystemStats = requireNonNull(fileSystemStats, "fileSystemStats is null");
    this.store = IOStatisticsBinding.iostatisticsStore()
        .withCounters(Arrays.stream(CacheCounter.values()).map(CacheCounter::statisticName).toArray(String[]::new))
        .build();
  }

  public void add(CacheCounter counter, long value) {
    if (value != 0) {
      store.incrementCounter(counter.statisticName(), value);
      fileSystemStats.add(counter, value);
    }
  }

  public long get(CacheCounter counter) {
    return store.counters().get(counter.statisticName());
  }

  public IOStatistics ioStatistics() {
    return store;
  }
}
