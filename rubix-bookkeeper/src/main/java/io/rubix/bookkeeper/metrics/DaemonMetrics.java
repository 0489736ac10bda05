package io.rubix.bookkeeper.metrics;

import static java.util.Objects.requireNonNull;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rubix.core.metadata.RuleUsage;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheUsage;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The daemon's metrics for the Prometheus client: at each scrape, one {@link Values} of the daemon,
 * turned into typed counter and gauge snapshots (the stats map through {@link StatsFamilies}, the
 * disks labelled {@code dir}, the rules {@code rule}, the tables {@code table}).
 */
public final class DaemonMetrics implements MultiCollector {
  /** What one scrape shows: the daemon's stats map, its disks, its rules with a quota, and its insight report. */
  public record Values(Map<String, Long> stats, List<CacheUsage.Disk> disks, List<RuleUsage> rules, CacheInsightReport insight) {
    public Values {
      stats = Map.copyOf(requireNonNull(stats, "stats is null"));
      disks = List.copyOf(requireNonNull(disks, "disks is null"));
      rules = List.copyOf(requireNonNull(rules, "rules is null"));
      requireNonNull(insight, "insight is null");
    }
  }

  private static final Family DISK_USED = Family.gauge("rubix_cache_disk_used_bytes", "Bytes charged against the cache directory's cap.");
  private static final Family DISK_CAPACITY = Family.gauge("rubix_cache_disk_capacity_bytes", "The cache directory's cap.");

  private final Supplier<Values> values;

  public DaemonMetrics(Supplier<Values> values) {
    this.values = requireNonNull(values, "values is null");
  }

  @Override
  public MetricSnapshots collect() {
    Values now = values.get();
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    for (StatsFamilies.Entry entry : StatsFamilies.all()) {
      Long value = now.stats().get(entry.key());
      if (value != null) {
        out.metricSnapshot(entry.family().snapshot(value / entry.divisor()));
      }
    }
    Family.Points used = DISK_USED.points();
    Family.Points capacity = DISK_CAPACITY.points();
    for (CacheUsage.Disk disk : now.disks()) {
      used.add(Labels.of("dir", disk.directory()), disk.usedBytes());
      capacity.add(Labels.of("dir", disk.directory()), disk.capacityBytes());
    }
    out.metricSnapshot(used.snapshot());
    out.metricSnapshot(capacity.snapshot());
    RuleMetrics.snapshots(now.rules(), out::metricSnapshot);
    InsightMetrics.snapshots(now.insight(), out::metricSnapshot);
    return out.build();
  }
}
