package io.rubix.core.insight;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheInsights;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/** The {@link CacheInsightMXBean} of one metadata service: every attribute asks it anew. */
public final class CacheInsightBean implements CacheInsightMXBean {
  private final CacheInsights insights;

  public CacheInsightBean(CacheInsights insights) {
    this.insights = requireNonNull(insights, "insights is null");
  }

  @Override
  public Map<String, Long> getTableHitBlocks() {
    return perTable(TableStats::hitBlocks);
  }

  @Override
  public Map<String, Long> getTableMissBlocks() {
    return perTable(TableStats::missBlocks);
  }

  @Override
  public Map<String, Long> getTableCachedBytes() {
    return perTable(TableStats::cachedBytes);
  }

  @Override
  public Map<String, Long> getTableFilledBytes() {
    return perTable(TableStats::filledBytes);
  }

  @Override
  public Map<String, Long> getTableEvictions() {
    return perTable(TableStats::evictions);
  }

  @Override
  public long getWorkingSetBytes() {
    return report().workingSet().distinctBytes();
  }

  @Override
  public long getWorkingSetWindowSeconds() {
    return report().workingSet().windowMillis() / 1000;
  }

  @Override
  public Map<String, Double> getShadowHitRatios() {
    WorkingSetEstimate estimate = report().workingSet();
    Map<String, Double> ratios = new LinkedHashMap<>();
    ratios.put("0.5x", estimate.shadowHitRatioHalf());
    ratios.put("1x", estimate.shadowHitRatioOne());
    ratios.put("2x", estimate.shadowHitRatioDouble());
    return ratios;
  }

  @Override
  public double getObservedHitRatio() {
    return report().workingSet().observedHitRatio();
  }

  private Map<String, Long> perTable(ToLongFunction<TableStats> value) {
    CacheInsightReport report = report();
    Map<String, Long> values = new LinkedHashMap<>();
    report.tables().forEach(t -> values.put(t.prefix(), value.applyAsLong(t)));
    values.put(report.other().prefix(), value.applyAsLong(report.other()));
    return values;
  }

  private CacheInsightReport report() {
    try {
      return insights.insight();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
