package io.rubix.benchmarks.tpcds;

import java.util.List;
import java.util.Locale;

/**
 * The median, minimum and maximum of some measurements (an even count's median is the mean of the two
 * middle values, rounded down).
 */
record Spread(long median, long min, long max) {
  Spread {
    if (min > median || median > max) {
      throw new IllegalArgumentException("not min <= median <= max: " + min + ", " + median + ", " + max);
    }
  }

  static Spread of(List<Long> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no values");
    }
    long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
    int n = sorted.length;
    long median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return new Spread(median, sorted[0], sorted[n - 1]);
  }

  /** {@code 812} or, when the values differ, {@code 812 (790–901)}. */
  String text() {
    return min == max ? Long.toString(median) : String.format(Locale.ROOT, "%d (%d–%d)", median, min, max);
  }
}
