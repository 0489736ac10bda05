package io.rubix.bookkeeper.metrics;

import static java.util.Objects.requireNonNull;

import io.prometheus.metrics.model.registry.MetricType;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.List;

/**
 * One metric family of {@code /metrics} as the daemon declares it: a counter (monotonic since the daemon
 * started; the writers append {@code _total}) or a gauge (a level), its name without {@code _total}, its
 * unit when the name ends in one ({@code _bytes}, {@code _seconds}, {@code _ratio}; else null), and its help text.
 */
record Family(MetricType type, String name, Unit unit, String help) {
  Family {
    requireNonNull(type, "type is null");
    requireNonNull(name, "name is null");
    requireNonNull(help, "help is null");
    if (type != MetricType.COUNTER && type != MetricType.GAUGE) {
      throw new IllegalArgumentException(name + ": only counters and gauges, not " + type);
    }
    if (name.endsWith("_total")) {
      throw new IllegalArgumentException(name + ": a family is named without _total (the writers append it to counters)");
    }
  }

  static Family counter(String name, String help) {
    return new Family(MetricType.COUNTER, name, unitOf(name), help);
  }

  static Family gauge(String name, String help) {
    return new Family(MetricType.GAUGE, name, unitOf(name), help);
  }

  /** The unit the name ends in, or null. */
  private static Unit unitOf(String name) {
    for (Unit unit : List.of(Unit.BYTES, Unit.SECONDS, Unit.RATIO)) {
      if (name.endsWith("_" + unit)) {
        return unit;
      }
    }
    return null;
  }

  /** The family's snapshot with one unlabelled value. */
  MetricSnapshot snapshot(double value) {
    return points().add(Labels.EMPTY, value).snapshot();
  }

  /** Collects the labelled values of one scrape. */
  Points points() {
    return new Points(this);
  }

  /** The values of one family at one scrape, each with its labels. */
  static final class Points {
    private final Family family;
    private final List<Labels> labels = new ArrayList<>();
    private final List<Double> values = new ArrayList<>();

    private Points(Family family) {
      this.family = family;
    }

    Points add(Labels labels, double value) {
      this.labels.add(requireNonNull(labels, "labels is null"));
      values.add(value);
      return this;
    }

    MetricSnapshot snapshot() {
      if (family.type() == MetricType.COUNTER) {
        CounterSnapshot.Builder counter = CounterSnapshot.builder().name(family.name()).help(family.help()).unit(family.unit());
        for (int i = 0; i < values.size(); i++) {
          counter.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels.get(i)).value(values.get(i)).build());
        }
        return counter.build();
      }
      GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(family.name()).help(family.help()).unit(family.unit());
      for (int i = 0; i < values.size(); i++) {
        gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels.get(i)).value(values.get(i)).build());
      }
      return gauge.build();
    }
  }
}
