package io.rubix.core.insight;

import java.util.Map;

/**
 * JMX view of a metadata service's per-table counters (keyed by table prefix, at most
 * {@code rubix.cache.stats.prefix.entries} of them plus {@code other}) and working-set estimate
 * ({@code io.rubix:type=CacheInsight}).
 */
public interface CacheInsightMXBean {
  Map<String, Long> getTableHitBlocks();

  Map<String, Long> getTableMissBlocks();

  Map<String, Long> getTableCachedBytes();

  Map<String, Long> getTableFilledBytes();

  Map<String, Long> getTableEvictions();

  /** Distinct bytes accessed in the last window. */
  long getWorkingSetBytes();

  long getWorkingSetWindowSeconds();

  /** Byte hit ratio LRU caches of {@code 0.5x}, {@code 1x} and {@code 2x} the capacity would have had in the window. */
  Map<String, Double> getShadowHitRatios();

  /** Byte hit ratio of the real cache in the window, counted like the shadow ones. */
  double getObservedHitRatio();
}
