package io.rubix.benchmarks.tpcds;

import java.util.Arrays;
import java.util.Locale;

/**
 * The file format the TPC-DS tables are written in. Each format's tables live under their own key
 * ({@code tpcds/<scale>/<format>/<table>} in the bucket, {@code <scale>/<format>/<table>} in the local
 * copy), so the data sets of both formats sit side by side and each is generated once.
 */
enum TableFormat {
  ORC("ORC"),
  PARQUET("Parquet");

  private final String title;

  TableFormat(String title) {
    this.title = title;
  }

  /** The name Spark's {@code DataFrameReader.format} and {@code DataFrameWriter.format} take, and the key in paths: {@code orc}. */
  String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** How reports name it: {@code ORC}, {@code Parquet}. */
  String title() {
    return title;
  }

  static TableFormat named(String key) {
    return Arrays.stream(values()).filter(f -> f.key().equals(key.trim().toLowerCase(Locale.ROOT))).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown --format " + key + "; known: "
            + Arrays.stream(values()).map(TableFormat::key).toList()));
  }
}
