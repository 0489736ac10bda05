package io.rubix.benchmarks.tpcds;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes the results: Markdown and CSV tables of the median and the min–max of the iterations per
 * query and per total (a total is one timed pass over all queries), speed-ups of the medians, the S3
 * requests and bytes per configuration, and a PNG bar chart per query and for the total (bars:
 * medians; whiskers: min–max).
 */
final class Report {
  private final BenchmarkOptions options;
  private final List<BenchmarkConfiguration> configurations;
  private final BenchmarkConfiguration reference;
  private final BenchmarkConfiguration baseline;
  private final Map<String, Map<BenchmarkConfiguration, QueryResult>> byQuery = new LinkedHashMap<>();

  Report(BenchmarkOptions options, BenchmarkConfiguration reference, BenchmarkConfiguration baseline, List<QueryResult> results) {
    this.options = options;
    this.configurations = options.configurations();
    this.reference = reference;
    this.baseline = baseline;
    for (String query : options.queries()) {
      byQuery.put(query, new LinkedHashMap<>());
    }
    for (QueryResult result : results) {
      byQuery.computeIfAbsent(result.query(), q -> new LinkedHashMap<>()).put(result.configuration(), result);
    }
  }

  /** The spread of {@code configuration}'s pass totals: the sum of every query's i-th iteration, for each i. */
  Spread total(BenchmarkConfiguration configuration) {
    return Spread.of(passTotals(configuration, Iteration::millis));
  }

  /** Per pass, the sum over the queries of {@code counter} (-1 if any query did not measure it). */
  private List<Long> passTotals(BenchmarkConfiguration configuration, ToLongFunction<Iteration> counter) {
    List<Long> totals = new ArrayList<>();
    for (int pass = 0; pass < options.iterations(); pass++) {
      long sum = 0;
      for (Map<BenchmarkConfiguration, QueryResult> row : byQuery.values()) {
        QueryResult result = row.get(configuration);
        if (result == null || pass >= result.iterations().size()) {
          continue;
        }
        long value = counter.applyAsLong(result.iterations().get(pass));
        sum = sum < 0 || value < 0 ? -1 : sum + value;
      }
      totals.add(sum);
    }
    return totals;
  }

  /** The spread of {@code configuration}'s pass totals of {@code counter} (a median of -1 when it was not measured). */
  Spread served(BenchmarkConfiguration configuration, ToLongFunction<Iteration> counter) {
    return Spread.of(passTotals(configuration, counter));
  }

  double speedUp(BenchmarkConfiguration configuration) {
    long total = total(configuration).median();
    return total == 0 ? 0 : (double) total(baseline).median() / total;
  }

  /** Whether every iteration of {@code result} gave the reference configuration's first answer to its query. */
  boolean answerMatches(QueryResult result) {
    QueryResult expected = byQuery.get(result.query()).get(reference);
    if (expected == null) {
      return true;
    }
    String answer = expected.iterations().get(0).answer();
    return result.iterations().stream().allMatch(i -> i.answer().equals(answer));
  }

  boolean answersMatch() {
    return byQuery.values().stream().flatMap(m -> m.values().stream()).allMatch(this::answerMatches);
  }

  String markdown(String header) {
    StringBuilder md = new StringBuilder(header).append('\n');
    md.append("| query |");
    configurations.forEach(c -> md.append(' ').append(c.label()).append(" ms |"));
    configurations.stream().filter(c -> c != baseline).forEach(c -> md.append(' ').append(c.label()).append(" speed-up |"));
    md.append("\n|---|");
    configurations.forEach(c -> md.append("---:|"));
    configurations.stream().filter(c -> c != baseline).forEach(c -> md.append("---:|"));
    md.append('\n');
    for (Map.Entry<String, Map<BenchmarkConfiguration, QueryResult>> row : byQuery.entrySet()) {
      md.append("| ").append(row.getKey()).append(" |");
      for (BenchmarkConfiguration c : configurations) {
        QueryResult r = row.getValue().get(c);
        md.append(' ').append(r == null ? "" : r.millis().text() + (answerMatches(r) ? "" : " (WRONG ANSWER)")).append(" |");
      }
      QueryResult base = row.getValue().get(baseline);
      for (BenchmarkConfiguration c : configurations) {
        if (c != baseline) {
          QueryResult r = row.getValue().get(c);
          md.append(' ').append(r == null || base == null ? "" : ratio(base.millis().median(), r.millis().median())).append(" |");
        }
      }
      md.append('\n');
    }
    md.append("| **total** |");
    configurations.forEach(c -> md.append(" **").append(total(c).text()).append("** |"));
    configurations.stream().filter(c -> c != baseline)
        .forEach(c -> md.append(" **").append(ratio(total(baseline).median(), total(c).median())).append("** |"));
    md.append("\n\nWhat the S3 server answered per timed pass over all queries (median of the ").append(options.iterations())
        .append(" passes; min–max when they differ):\n\n");
    md.append("| configuration | GETs | HEADs | LISTs | MB sent |\n|---|---:|---:|---:|---:|\n");
    for (BenchmarkConfiguration c : configurations) {
      Spread bytes = Spread.of(passTotals(c, Iteration::bytes));
      md.append("| ").append(c.label()).append(" | ").append(counted(c, Iteration::gets)).append(" | ").append(counted(c, Iteration::heads))
          .append(" | ").append(counted(c, Iteration::lists)).append(" | ")
          .append(bytes.median() < 0 ? "?" : bytes.min() == bytes.max() ? megabytes(bytes.median())
              : megabytes(bytes.median()) + " (" + megabytes(bytes.min()) + "–" + megabytes(bytes.max()) + ")")
          .append(" |\n");
    }
    if (options.format().openTable()) {
      md.append("\nOf those, the tables' data files (").append(options.format() == TableFormat.DELTA ? "Parquet files outside _delta_log"
          : "Parquet files outside metadata/").append(") and what tells a reader the table's version (")
          .append(options.format() == TableFormat.DELTA ? "the _delta_log directory and _delta_log/_last_checkpoint"
              : "a Hadoop catalog's metadata/version-hint.text; this JDBC catalog has none").append("):\n\n");
      md.append("| configuration | data-file GETs | data-file HEADs | log HEADs |\n|---|---:|---:|---:|\n");
      for (BenchmarkConfiguration c : configurations) {
        md.append("| ").append(c.label()).append(" | ").append(counted(c, Iteration::dataGets)).append(" | ")
            .append(counted(c, Iteration::dataHeads)).append(" | ").append(counted(c, Iteration::logHeads)).append(" |\n");
      }
    }
    return md.toString();
  }

  private String counted(BenchmarkConfiguration configuration, ToLongFunction<Iteration> counter) {
    Spread spread = Spread.of(passTotals(configuration, counter));
    return spread.median() < 0 ? "?" : spread.text();
  }

  private static String megabytes(long bytes) {
    return String.format(Locale.ROOT, "%.2f", bytes / 1e6);
  }

  private static String ratio(long base, long value) {
    return value == 0 ? "" : String.format(Locale.ROOT, "%.2fx", (double) base / value);
  }

  void write(Path dir, String header) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.md"), markdown(header), StandardCharsets.UTF_8);
    StringBuilder csv = new StringBuilder("query,configuration,median_ms,min_ms,max_ms,iterations,gets,heads,lists,bytes_from_s3,max_bytes_from_s3,"
        + "speedup_vs_" + baseline.label() + ",answer_matches\n");
    for (Map.Entry<String, Map<BenchmarkConfiguration, QueryResult>> row : byQuery.entrySet()) {
      QueryResult base = row.getValue().get(baseline);
      for (BenchmarkConfiguration c : configurations) {
        QueryResult r = row.getValue().get(c);
        if (r != null) {
          csvRow(csv, row.getKey(), c, r.millis(), r.spread(Iteration::gets), r.spread(Iteration::heads), r.spread(Iteration::lists),
              r.spread(Iteration::bytes), base == null ? 0 : base.millis().median(), answerMatches(r));
        }
      }
    }
    for (BenchmarkConfiguration c : configurations) {
      boolean matches = byQuery.values().stream().filter(m -> m.containsKey(c)).allMatch(m -> answerMatches(m.get(c)));
      csvRow(csv, "total", c, total(c), Spread.of(passTotals(c, Iteration::gets)), Spread.of(passTotals(c, Iteration::heads)),
          Spread.of(passTotals(c, Iteration::lists)), Spread.of(passTotals(c, Iteration::bytes)), total(baseline).median(), matches);
    }
    Files.writeString(dir.resolve("results.csv"), csv.toString(), StandardCharsets.UTF_8);
    Path charts = dir.resolve("charts");
    Files.createDirectories(charts);
    for (Map.Entry<String, Map<BenchmarkConfiguration, QueryResult>> row : byQuery.entrySet()) {
      List<String> labels = new ArrayList<>();
      List<Spread> spreads = new ArrayList<>();
      for (BenchmarkConfiguration c : configurations) {
        QueryResult r = row.getValue().get(c);
        if (r != null) {
          labels.add(c.label());
          spreads.add(r.millis());
        }
      }
      chart(charts.resolve(row.getKey() + ".png"), "TPC-DS " + row.getKey() + " (" + options.scaleKey() + ", " + options.format().title() + ")", labels, spreads);
    }
    List<String> labels = new ArrayList<>();
    List<Spread> totals = new ArrayList<>();
    configurations.forEach(c -> {
      labels.add(c.label());
      totals.add(total(c));
    });
    chart(charts.resolve("total.png"), "TPC-DS, one pass over " + byQuery.size() + " queries (" + options.scaleKey() + ", "
        + options.format().title() + ")", labels, totals);
  }

  private void csvRow(StringBuilder csv, String query, BenchmarkConfiguration c, Spread millis, Spread gets, Spread heads, Spread lists,
      Spread bytes, long baseMedian, boolean matches) {
    String speedUp = baseMedian == 0 || millis.median() == 0 ? "" : String.format(Locale.ROOT, "%.3f", (double) baseMedian / millis.median());
    csv.append(String.join(",", query, c.label(), Long.toString(millis.median()), Long.toString(millis.min()), Long.toString(millis.max()),
        Integer.toString(options.iterations()), Long.toString(gets.median()), Long.toString(heads.median()), Long.toString(lists.median()),
        Long.toString(bytes.median()), Long.toString(bytes.max()), speedUp, Boolean.toString(matches))).append('\n');
  }

  /** Bars at the medians; with more than one iteration, whiskers from the minimum to the maximum. */
  private void chart(Path file, String title, List<String> labels, List<Spread> spreads) throws IOException {
    boolean ranges = options.iterations() > 1;
    CategoryChart chart = new CategoryChartBuilder().width(1000).height(500).title(title)
        .xAxisTitle("configuration").yAxisTitle(ranges ? "ms: median, whiskers min–max of " + options.iterations() : "ms").build();
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setXAxisLabelRotation(20);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    chart.getStyler().setOverlapped(true);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisMax(spreads.stream().mapToLong(Spread::max).max().orElse(1) * 1.1);
    chart.addSeries("median", labels, spreads.stream().map(s -> (Number) s.median()).toList());
    if (ranges) {
      // XChart's error bars are symmetric: an invisible point halfway between min and max carries a bar of half the range
      CategorySeries range = chart.addSeries("min–max", labels, spreads.stream().map(s -> (Number) ((s.min() + s.max()) / 2.0)).toList(),
          spreads.stream().map(s -> (Number) ((s.max() - s.min()) / 2.0)).toList());
      range.setChartCategorySeriesRenderStyle(CategorySeriesRenderStyle.Scatter);
      range.setMarker(SeriesMarkers.NONE);
      chart.getStyler().setErrorBarsColor(Color.BLACK);
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
