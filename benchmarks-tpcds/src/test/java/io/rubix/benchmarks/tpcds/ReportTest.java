package io.rubix.benchmarks.tpcds;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  @TempDir
  Path temp;

  @Test
  void spreadIsMedianMinAndMax() {
    assertThat(Spread.of(List.of(30L, 10L, 20L))).isEqualTo(new Spread(20, 10, 30));
    assertThat(Spread.of(List.of(40L, 10L, 20L, 30L))).isEqualTo(new Spread(25, 10, 40));
    assertThat(new Spread(5, 5, 5).text()).isEqualTo("5");
    assertThat(new Spread(20, 10, 30).text()).isEqualTo("20 (10–30)");
  }

  @Test
  void totalsAreTheSpreadOfPassTotalsAndAnswersAreComparedWithTheReference() throws Exception {
    BenchmarkOptions options = BenchmarkOptions.parse("--queries", "q3,q55", "--iterations", "3", "--configs", "s3a-classic,rubix-warm",
        "--results", temp.toString());
    List<QueryResult> results = List.of(
        new QueryResult("q3", BenchmarkConfiguration.S3A_CLASSIC, List.of(run(100, "a", 5000), run(300, "a", 5000), run(200, "a", 5000))),
        new QueryResult("q55", BenchmarkConfiguration.S3A_CLASSIC, List.of(run(1000, "b", 7000), run(1000, "b", 7000), run(1600, "b", 7000))),
        new QueryResult("q3", BenchmarkConfiguration.RUBIX_WARM, List.of(run(50, "a", 0), run(60, "a", 0), run(70, "a", 0))),
        new QueryResult("q55", BenchmarkConfiguration.RUBIX_WARM, List.of(run(500, "b", 0), run(400, "WRONG", 0), run(500, "b", 0))));
    Report report = new Report(options, BenchmarkConfiguration.S3A_CLASSIC, BenchmarkConfiguration.S3A_CLASSIC, results);

    // passes: classic 1100, 1300, 1800; warm 550, 460, 570
    assertThat(report.total(BenchmarkConfiguration.S3A_CLASSIC)).isEqualTo(new Spread(1300, 1100, 1800));
    assertThat(report.total(BenchmarkConfiguration.RUBIX_WARM)).isEqualTo(new Spread(550, 460, 570));
    assertThat(report.speedUp(BenchmarkConfiguration.RUBIX_WARM)).isEqualTo(1300.0 / 550);
    assertThat(report.answersMatch()).isFalse();

    String md = report.markdown("# header\n");
    assertThat(md).contains("| q3 | 200 (100–300) | 60 (50–70) | 3.33x |", "(WRONG ANSWER)", "| **total** | **1300 (1100–1800)** | **550 (460–570)** |",
        "| s3a-classic | 2 | 2 | 0 | 0.01 |", "| rubix-warm | 2 | 2 | 0 | 0.00 |");
    report.write(temp.resolve("out"), "# header\n");
    assertThat(Files.readAllLines(temp.resolve("out/results.csv"))).contains(
        "q3,s3a-classic,200,100,300,3,1,1,0,5000,5000,1.000,true",
        "q55,rubix-warm,500,400,500,3,1,1,0,0,0,2.000,false",
        "total,s3a-classic,1300,1100,1800,3,2,2,0,12000,12000,1.000,true");
    assertThat(temp.resolve("out/charts/total.png")).isNotEmptyFile();
  }

  private static Iteration run(long millis, String answer, long bytes) {
    return new Iteration(millis, 10, answer, 1, 1, 0, bytes);
  }
}
