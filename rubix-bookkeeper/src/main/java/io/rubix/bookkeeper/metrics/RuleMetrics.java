package io.rubix.bookkeeper.metrics;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.rubix.core.metadata.RuleUsage;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * The use of each path rule with a quota, as entries of the daemon's stats map
 * ({@code rule.<name>.used_bytes}, ...: what {@code rubix stats} and {@code rubix status} read) and as
 * metrics labelled by rule ({@code rubix_rule_used_bytes{rule="<name>"}}). Rules are configured, so the
 * label's values are bounded.
 */
public final class RuleMetrics {
  /** Prefix of the stats map's per-rule keys. */
  public static final String PREFIX = "rule.";

  private record Metric(String suffix, Family family, ToLongFunction<RuleUsage> value) {}

  private static final List<Metric> METRICS = List.of(
      new Metric("quota_bytes", Family.gauge("rubix_rule_quota_bytes", "The rule's quota."), RuleUsage::quotaBytes),
      new Metric("used_bytes", Family.gauge("rubix_rule_used_bytes", "Bytes charged to the rule's objects against its quota."),
          RuleUsage::usedBytes),
      new Metric("objects", Family.gauge("rubix_rule_objects", "Cached object versions of the rule."), RuleUsage::objects),
      new Metric("evictions", Family.counter("rubix_rule_evictions", "Object versions evicted to keep the rule within its quota."),
          RuleUsage::evictions),
      new Metric("denials", Family.counter("rubix_rule_denials", "Blocks and new objects of the rule refused because evicting was not enough."),
          RuleUsage::denials));

  private RuleMetrics() {}

  /** Adds {@code rule.<name>.<metric>} entries for {@code rules} to {@code stats}. */
  public static void putStats(List<RuleUsage> rules, Map<String, Long> stats) {
    for (RuleUsage rule : rules) {
      for (Metric metric : METRICS) {
        stats.put(PREFIX + rule.rule() + "." + metric.suffix(), metric.value().applyAsLong(rule));
      }
    }
  }

  /** One family per metric with a value per rule; none without rules. */
  static void snapshots(List<RuleUsage> rules, Consumer<MetricSnapshot> out) {
    if (rules.isEmpty()) {
      return;
    }
    for (Metric metric : METRICS) {
      Family.Points points = metric.family().points();
      for (RuleUsage rule : rules) {
        points.add(Labels.of("rule", rule.rule()), metric.value().applyAsLong(rule));
      }
      out.accept(points.snapshot());
    }
  }
}
