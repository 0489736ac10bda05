package io.rubix.benchmarks.tpcds;

import java.util.Arrays;
import java.util.Locale;

/**
 * The format the TPC-DS tables are written in: plain ORC or Parquet files, or Iceberg or Delta Lake
 * tables (both with Parquet data files, their default). Each format's tables live under their own key
 * ({@code tpcds/<scale>/<format>/<table>} in the bucket, {@code <scale>/<format>/<table>} in the local
 * copy), so the data sets of all formats sit side by side and each is generated once.
 */
enum TableFormat {
  ORC("ORC"),
  PARQUET("Parquet"),
  /** Iceberg tables in a JDBC (sqlite) catalog whose warehouse is in the bucket, written with Parquet data files. */
  ICEBERG("Iceberg"),
  /** Delta Lake tables (a directory with {@code _delta_log}), written with Parquet data files. */
  DELTA("Delta Lake");

  private final String title;

  TableFormat(String title) {
    this.title = title;
  }

  /** The name in paths and on the command line: {@code orc}; for ORC and Parquet also the name Spark's readers and writers take. */
  String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** How reports name it: {@code ORC}, {@code Parquet}, {@code Iceberg}, {@code Delta Lake}. */
  String title() {
    return title;
  }

  /** An open table format: a table is metadata over data files, not a directory of files. */
  boolean openTable() {
    return this == ICEBERG || this == DELTA;
  }

  static TableFormat named(String key) {
    return Arrays.stream(values()).filter(f -> f.key().equals(key.trim().toLowerCase(Locale.ROOT))).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown --format " + key + "; known: "
            + Arrays.stream(values()).map(TableFormat::key).toList()));
  }
}
