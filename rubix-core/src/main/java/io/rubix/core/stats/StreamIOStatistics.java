package io.rubix.core.stats;

import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.impl.DynamicIOStatisticsBuilder;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;

/** A live IOStatistics view of a stream's counters (Hadoop 3.3+ only: see {@code io.rubix.core.compat.HadoopApi}). */
public final class StreamIOStatistics {
  private StreamIOStatistics() {}

  public static IOStatistics of(StreamStats stats) {
    DynamicIOStatisticsBuilder builder = IOStatisticsBinding.dynamicIOStatistics();
    for (CacheCounter counter : CacheCounter.values()) {
      builder.withLongFunctionCounter(counter.statisticName(), name -> stats.get(counter));
    }
    return builder.build();
  }
}
