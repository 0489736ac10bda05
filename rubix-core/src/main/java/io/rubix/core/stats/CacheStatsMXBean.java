package io.rubix.core.stats;

import java.util.Map;

/** JMX view of a cache-enabled file system: its counters and the space its cache uses. */
public interface CacheStatsMXBean {
  Map<String, Long> getCounters();

  long getCacheUsedBytes();

  long getCacheCapacityBytes();

  long getEvictions();

  /** Grants the eviction policy refused ({@code rubix.cache.eviction.policy=tinylfu}); 0 under lru. */
  long getAdmissionRejections();

  double getHitRatio();
}
