package io.rubix.core.stats;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** The JMX bean of one cache-enabled file system. */
public final class CacheStatsBean implements CacheStatsMXBean {
  private final CacheStats stats;
  private final CacheMetadataService service;

  public CacheStatsBean(CacheStats stats, CacheMetadataService service) {
    this.stats = requireNonNull(stats, "stats is null");
    this.service = requireNonNull(service, "service is null");
  }

  @Override
  public Map<String, Long> getCounters() {
    return stats.snapshot();
  }

  @Override
  public long getCacheUsedBytes() {
    return usage().usedBytes();
  }

  @Override
  public long getCacheCapacityBytes() {
    return usage().disks().stream().mapToLong(CacheUsage.Disk::capacityBytes).sum();
  }

  @Override
  public long getEvictions() {
    return usage().evictions();
  }

  @Override
  public long getAdmissionRejections() {
    return usage().admissionRejections();
  }

  @Override
  public double getHitRatio() {
    long hits = stats.get(CacheCounter.HIT_BYTES);
    long total = hits + stats.get(CacheCounter.MISS_BYTES);
    return total == 0 ? 0 : (double) hits / total;
  }

  private CacheUsage usage() {
    try {
      return service.usage();
    } catch (IOException e) {
      return new CacheUsage(List.of(), 0);
    }
  }
}
