package io.rubix.benchmarks.tpcds;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark at its smallest: scale 0.01, two queries, one iteration, every configuration; CI runs it in verify. */
class TpcdsBenchmarkSmokeTest {
  @TempDir
  Path temp;

  @Test
  void smokeRunProducesTablesChartsAndMatchingAnswers() throws Exception {
    BenchmarkOptions options = BenchmarkOptions.parse("--smoke", "--latency-ms", "5", "--bandwidth", "0",
        "--data-dir", temp.resolve("data").toString(), "--results", temp.resolve("results").toString(),
        "--cache-dir", temp.resolve("cache").toString());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TpcdsBenchmark.Outcome outcome;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      outcome = new TpcdsBenchmark(options, out).run();
    }
    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(outcome.answersMatch()).as(output).isTrue();
    assertThat(output).contains("[rubix-warm] q55 iteration 1/1", "first-byte latency 5 ms", "All answers match");
    assertThat(outcome.totals()).containsOnlyKeys("s3a-classic", "s3a-analytics", "s3a-prefetch", "rubix-cold", "rubix-warm", "alluxio-warm",
        "local-file");
    Path dir = outcome.resultsDir();
    assertThat(dir.resolve("results.md")).content().contains("| q3 |", "| q55 |", "**total**");
    assertThat(Files.readAllLines(dir.resolve("results.csv"))).hasSize(1 + 2 * 7);
    assertThat(output).contains("[local-file] q55 iteration 1/1", "Goal: rubix-warm total <= 1.10x local-file's");
    assertThat(dir.resolve("charts/q3.png")).isNotEmptyFile();
    assertThat(dir.resolve("charts/total.png")).isNotEmptyFile();
    // warm reads come from the caches, and the local files from local disk: the S3 server sent nothing for them
    assertThat(Files.readAllLines(dir.resolve("results.csv"))).filteredOn(line -> line.contains("-warm,") || line.contains("local-file,"))
        .hasSize(6)
        .allSatisfy(line -> assertThat(line.split(",")[6]).isEqualTo("0"));
  }

  @Test
  void optionsHaveDocumentedDefaults() {
    BenchmarkOptions options = BenchmarkOptions.parse();
    assertThat(options.latencyMs()).isEqualTo(30);
    assertThat(options.bandwidth()).isEqualTo(100_000_000L);
    assertThat(options.queries()).hasSizeGreaterThanOrEqualTo(20);
    assertThat(options.scaleKey()).isEqualTo("sf0_1");
    assertThat(BenchmarkOptions.parseBytes("1.5g")).isEqualTo(1_500_000_000L);
  }
}
