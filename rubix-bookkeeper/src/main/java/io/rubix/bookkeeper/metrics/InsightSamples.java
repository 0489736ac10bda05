package io.rubix.bookkeeper.metrics;

import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The Prometheus samples of a {@link CacheInsightReport}: one per table and counter, labelled
 * {@code table} (at most {@code rubix.cache.stats.prefix.entries} prefixes plus {@code other}, so the
 * label set is bounded), and the shadow hit ratios labelled {@code size}.
 */
public final class InsightSamples {
  private InsightSamples() {}

  public static List<MetricsEndpoint.Sample> of(CacheInsightReport report) {
    List<MetricsEndpoint.Sample> samples = new ArrayList<>();
    perTable(samples, report, "rubix_table_hit_blocks", TableStats::hitBlocks);
    perTable(samples, report, "rubix_table_miss_blocks", TableStats::missBlocks);
    perTable(samples, report, "rubix_table_cached_bytes", TableStats::cachedBytes);
    perTable(samples, report, "rubix_table_granted_bytes_total", TableStats::grantedBytes);
    perTable(samples, report, "rubix_table_filled_bytes_total", TableStats::filledBytes);
    perTable(samples, report, "rubix_table_evictions", TableStats::evictions);
    WorkingSetEstimate w = report.workingSet();
    samples.add(new MetricsEndpoint.Sample("rubix_shadow_hit_ratio", size("0.5x"), w.shadowHitRatioHalf()));
    samples.add(new MetricsEndpoint.Sample("rubix_shadow_hit_ratio", size("1x"), w.shadowHitRatioOne()));
    samples.add(new MetricsEndpoint.Sample("rubix_shadow_hit_ratio", size("2x"), w.shadowHitRatioDouble()));
    samples.add(new MetricsEndpoint.Sample("rubix_shadow_observed_hit_ratio", "", w.observedHitRatio()));
    samples.add(new MetricsEndpoint.Sample("rubix_shadow_sample_rate", "", w.sampleRate()));
    return samples;
  }

  /** The working-set values that are whole numbers, for the daemon's counters ({@code rubix stats}). */
  public static void counters(CacheInsightReport report, Map<String, Long> counters) {
    WorkingSetEstimate w = report.workingSet();
    counters.put("rubix_working_set_bytes", w.distinctBytes());
    counters.put("rubix_working_set_accessed_bytes", w.accessedBytes());
    counters.put("rubix_working_set_window_seconds", w.windowMillis() / 1000);
  }

  private static String size(String size) {
    return MetricsEndpoint.labels(Map.of("size", size));
  }

  private static void perTable(List<MetricsEndpoint.Sample> samples, CacheInsightReport report, String name, ToLongFunction<TableStats> value) {
    for (TableStats table : report.tables()) {
      samples.add(new MetricsEndpoint.Sample(name, MetricsEndpoint.labels(Map.of("table", table.prefix())), value.applyAsLong(table)));
    }
    samples.add(new MetricsEndpoint.Sample(name, MetricsEndpoint.labels(Map.of("table", TableStats.OTHER)), value.applyAsLong(report.other())));
  }
}
