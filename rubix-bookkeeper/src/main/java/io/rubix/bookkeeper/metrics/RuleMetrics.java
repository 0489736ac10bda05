package io.rubix.bookkeeper.metrics;

import io.rubix.core.metadata.RuleUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The use of each path rule with a quota, as entries of the daemon's stats map
 * ({@code rule.<name>.used_bytes}, ...: what {@code rubix stats} and {@code rubix status} read) and as
 * Prometheus samples labeled by rule ({@code rubix_rule_used_bytes{rule="<name>"}}). Rules are
 * configured, so the label's values are bounded.
 */
public final class RuleMetrics {
  /** Prefix of the stats map's per-rule keys. */
  public static final String PREFIX = "rule.";

  private record Metric(String suffix, ToLongFunction<RuleUsage> value) {}

  private static final List<Metric> METRICS = List.of(
      new Metric("quota_bytes", RuleUsage::quotaBytes),
      new Metric("used_bytes", RuleUsage::usedBytes),
      new Metric("objects", RuleUsage::objects),
      new Metric("evictions", RuleUsage::evictions),
      new Metric("denials", RuleUsage::denials));

  private RuleMetrics() {}

  /** Adds {@code rule.<name>.<metric>} entries for {@code rules} to {@code stats}. */
  public static void putStats(List<RuleUsage> rules, Map<String, Long> stats) {
    for (RuleUsage rule : rules) {
      for (Metric metric : METRICS) {
        stats.put(PREFIX + rule.rule() + "." + metric.suffix(), metric.value().applyAsLong(rule));
      }
    }
  }

  /** One {@code rubix_rule_<metric>} sample per rule and metric, grouped by metric. */
  public static List<MetricsEndpoint.Sample> samples(List<RuleUsage> rules) {
    List<MetricsEndpoint.Sample> samples = new ArrayList<>();
    for (Metric metric : METRICS) {
      for (RuleUsage rule : rules) {
        samples.add(new MetricsEndpoint.Sample("rubix_rule_" + metric.suffix(), MetricsEndpoint.labels(Map.of("rule", rule.rule())),
            metric.value().applyAsLong(rule)));
      }
    }
    return samples;
  }
}
