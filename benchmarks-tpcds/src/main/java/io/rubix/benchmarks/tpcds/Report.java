package io.rubix.benchmarks.tpcds;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/** Writes the results: a Markdown and a CSV table of median times and speed-ups, and a PNG bar chart per query and for the total. */
final class Report {
  private final BenchmarkOptions options;
  private final List<BenchmarkConfiguration> configurations;
  private final BenchmarkConfiguration baseline;
  private final Map<String, Map<BenchmarkConfiguration, QueryResult>> byQuery = new LinkedHashMap<>();

  Report(BenchmarkOptions options, BenchmarkConfiguration baseline, List<QueryResult> results) {
    this.options = options;
    this.configurations = options.configurations();
    this.baseline = baseline;
    for (QueryResult result : results) {
      byQuery.computeIfAbsent(result.query(), q -> new LinkedHashMap<>()).put(result.configuration(), result);
    }
  }

  long total(BenchmarkConfiguration configuration) {
    return byQuery.values().stream().mapToLong(m -> m.containsKey(configuration) ? m.get(configuration).medianMillis() : 0).sum();
  }

  double speedUp(BenchmarkConfiguration configuration) {
    long total = total(configuration);
    return total == 0 ? 0 : (double) total(baseline) / total;
  }

  boolean answersMatch() {
    return byQuery.values().stream().flatMap(m -> m.values().stream()).allMatch(QueryResult::answerMatches);
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
        md.append(' ').append(r == null ? "" : r.medianMillis() + (r.answerMatches() ? "" : " (WRONG ANSWER)")).append(" |");
      }
      QueryResult base = row.getValue().get(baseline);
      for (BenchmarkConfiguration c : configurations) {
        if (c != baseline) {
          QueryResult r = row.getValue().get(c);
          md.append(' ').append(r == null || base == null ? "" : ratio(base.medianMillis(), r.medianMillis())).append(" |");
        }
      }
      md.append('\n');
    }
    md.append("| **total** |");
    configurations.forEach(c -> md.append(" **").append(total(c)).append("** |"));
    configurations.stream().filter(c -> c != baseline).forEach(c -> md.append(" **").append(ratio(total(baseline), total(c))).append("** |"));
    md.append("\n\nBytes sent by the S3 server per configuration (sum over queries of the median iteration): ");
    List<String> bytes = new ArrayList<>();
    for (BenchmarkConfiguration c : configurations) {
      long sum = byQuery.values().stream().filter(m -> m.containsKey(c)).mapToLong(m -> Math.max(0, m.get(c).medianBytes())).sum();
      bytes.add(c.label() + " " + String.format(Locale.ROOT, "%.1f MB", sum / 1e6));
    }
    md.append(String.join(", ", bytes)).append(".\n");
    return md.toString();
  }

  private static String ratio(long base, long value) {
    return value == 0 ? "" : String.format(Locale.ROOT, "%.2fx", (double) base / value);
  }

  void write(Path dir, String header) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("results.md"), markdown(header), StandardCharsets.UTF_8);
    StringBuilder csv = new StringBuilder("query,configuration,median_ms,min_ms,max_ms,iterations,bytes_from_s3,speedup_vs_" + baseline.label()
        + ",answer_matches\n");
    for (Map.Entry<String, Map<BenchmarkConfiguration, QueryResult>> row : byQuery.entrySet()) {
      QueryResult base = row.getValue().get(baseline);
      for (QueryResult r : row.getValue().values()) {
        long min = r.millis().stream().mapToLong(Long::longValue).min().orElse(0);
        long max = r.millis().stream().mapToLong(Long::longValue).max().orElse(0);
        String speedUp = base == null || r.medianMillis() == 0 ? "" : String.format(Locale.ROOT, "%.3f", (double) base.medianMillis() / r.medianMillis());
        csv.append(String.join(",", r.query(), r.configuration().label(), Long.toString(r.medianMillis()), Long.toString(min),
            Long.toString(max), Integer.toString(r.millis().size()), Long.toString(r.medianBytes()), speedUp,
            Boolean.toString(r.answerMatches()))).append('\n');
      }
    }
    Files.writeString(dir.resolve("results.csv"), csv.toString(), StandardCharsets.UTF_8);
    Path charts = dir.resolve("charts");
    Files.createDirectories(charts);
    for (Map.Entry<String, Map<BenchmarkConfiguration, QueryResult>> row : byQuery.entrySet()) {
      List<String> labels = new ArrayList<>();
      List<Number> values = new ArrayList<>();
      row.getValue().values().forEach(r -> {
        labels.add(r.configuration().label());
        values.add(r.medianMillis());
      });
      chart(charts.resolve(row.getKey() + ".png"), "TPC-DS " + row.getKey() + " (" + options.scaleKey() + ", ORC)", labels, values);
    }
    List<String> labels = new ArrayList<>();
    List<Number> totals = new ArrayList<>();
    configurations.forEach(c -> {
      labels.add(c.label());
      totals.add(total(c));
    });
    chart(charts.resolve("total.png"), "TPC-DS total of " + byQuery.size() + " queries (" + options.scaleKey() + ", ORC)", labels, totals);
  }

  private void chart(Path file, String title, List<String> labels, List<Number> values) throws IOException {
    CategoryChart chart = new CategoryChartBuilder().width(800).height(450).title(title)
        .xAxisTitle("configuration").yAxisTitle("median ms").build();
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setLabelsVisible(true);
    chart.addSeries("median ms", labels, values);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
