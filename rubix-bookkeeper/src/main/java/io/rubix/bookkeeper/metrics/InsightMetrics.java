package io.rubix.bookkeeper.metrics;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * The metrics of a {@link CacheInsightReport}: one per table and counter, labelled {@code table} (at most
 * {@code rubix.cache.stats.prefix.entries} prefixes plus {@code other}, so the label set is bounded; a
 * table that loses its entry hands its counts to {@code other}, and one that gets an entry again starts
 * from zero, which Prometheus reads as a counter reset), and the shadow hit ratios labelled {@code size}.
 */
public final class InsightMetrics {
  private record PerTable(Family family, ToLongFunction<TableStats> value) {}

  private static final List<PerTable> PER_TABLE = List.of(
      new PerTable(Family.counter("rubix_table_hit_blocks", "Blocks of the table read from the cache."), TableStats::hitBlocks),
      new PerTable(Family.counter("rubix_table_miss_blocks", "Blocks of the table granted or denied to readers (read from the source)."),
          TableStats::missBlocks),
      new PerTable(Family.gauge("rubix_table_cached_bytes", "Bytes of the table's published blocks held now."), TableStats::cachedBytes),
      new PerTable(Family.counter("rubix_table_granted_bytes", "Bytes of the table granted to fetchers."), TableStats::grantedBytes),
      new PerTable(Family.counter("rubix_table_filled_bytes", "Bytes of the table granted to fetchers and committed."), TableStats::filledBytes),
      new PerTable(Family.counter("rubix_table_evictions", "Object versions of the table evicted to make room."), TableStats::evictions));
  private static final Family SHADOW_HIT_RATIO = Family.gauge("rubix_shadow_hit_ratio",
      "Byte hit ratio an LRU cache of 0.5x, 1x and 2x the capacity would have had in the last window; NaN while not known.");
  private static final Family OBSERVED_HIT_RATIO = Family.gauge("rubix_shadow_observed_hit_ratio",
      "This cache's byte hit ratio in the last window, counted as the shadow caches count.");
  private static final Family SAMPLE_RATE = Family.gauge("rubix_shadow_sample_rate", "Share of the blocks the shadow caches sample.");

  private InsightMetrics() {}

  /** The report's metrics, one snapshot per family. */
  static void snapshots(CacheInsightReport report, Consumer<MetricSnapshot> out) {
    for (PerTable metric : PER_TABLE) {
      Family.Points points = metric.family().points();
      for (TableStats table : report.tables()) {
        points.add(Labels.of("table", table.prefix()), metric.value().applyAsLong(table));
      }
      points.add(Labels.of("table", TableStats.OTHER), metric.value().applyAsLong(report.other()));
      out.accept(points.snapshot());
    }
    WorkingSetEstimate w = report.workingSet();
    out.accept(SHADOW_HIT_RATIO.points()
        .add(Labels.of("size", "0.5x"), w.shadowHitRatioHalf())
        .add(Labels.of("size", "1x"), w.shadowHitRatioOne())
        .add(Labels.of("size", "2x"), w.shadowHitRatioDouble())
        .snapshot());
    out.accept(OBSERVED_HIT_RATIO.snapshot(w.observedHitRatio()));
    out.accept(SAMPLE_RATE.snapshot(w.sampleRate()));
  }

  /** The working-set values that are whole numbers, for the daemon's counters ({@code rubix stats}). */
  public static void counters(CacheInsightReport report, Map<String, Long> counters) {
    WorkingSetEstimate w = report.workingSet();
    counters.put("rubix_working_set_bytes", w.distinctBytes());
    counters.put("rubix_working_set_accessed_bytes", w.accessedBytes());
    counters.put("rubix_working_set_window_seconds", w.windowMillis() / 1000);
  }
}
