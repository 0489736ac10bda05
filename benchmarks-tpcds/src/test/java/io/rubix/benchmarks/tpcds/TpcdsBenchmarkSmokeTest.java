package io.rubix.benchmarks.tpcds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark at its smallest, through the same path as a real run (a JVM per configuration): scale
 * 0.01, one query, two iterations, three configurations over ORC, then two over the same data as
 * Parquet, and three over Iceberg and three over Delta Lake tables of the same data; CI runs it in verify.
 */
class TpcdsBenchmarkSmokeTest {
  @TempDir
  Path temp;

  @Test
  void everyConfigurationRunsInItsOwnJvmAndReportsWhatTheStoreServed() throws Exception {
    BenchmarkOptions options = BenchmarkOptions.parse("--scale", "0.01", "--queries", "q3", "--iterations", "2",
        "--configs", "rubix-warm,alluxio-cold,local-file", "--latency-ms", "5", "--bandwidth", "0",
        "--data-dir", temp.resolve("data").toString(), "--results", temp.resolve("results").toString(),
        "--cache-dir", temp.resolve("cache").toString());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TpcdsBenchmark.Outcome outcome;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      outcome = new TpcdsBenchmark(options, out).run();
    }
    String output = bytes.toString(StandardCharsets.UTF_8);

    // a JVM per configuration, none of them this one, in the printed shuffled order
    assertThat(outcome.pids()).as(output).hasSize(3);
    assertThat(outcome.pids().values()).doesNotHaveDuplicates().doesNotContain(ProcessHandle.current().pid());
    assertThat(outcome.order()).containsExactlyInAnyOrderElementsOf(options.configurations());
    assertThat(output).contains("(--seed " + outcome.seed() + "): " + String.join(", ", outcome.order().stream().map(BenchmarkConfiguration::label).toList()));
    assertThat(output).contains("[alluxio-cold] untimed warm-up query q3", "[rubix-warm] untimed warm-up run of all queries",
        "[local-file] q3 iteration 2/2", "latency 5 ms before the first byte of every GET and before every HEAD and LIST answer");

    // every iteration of every configuration gave the same, non-empty answer
    Map<BenchmarkConfiguration, QueryResult> q3 = byConfiguration(outcome.results());
    assertThat(q3).hasSize(3);
    assertThat(q3.values()).allSatisfy(r -> assertThat(r.iterations()).hasSize(2));
    assertThat(q3.values().stream().flatMap(r -> r.iterations().stream()).map(Iteration::answer).distinct()).hasSize(1);
    assertThat(q3.values().stream().flatMap(r -> r.iterations().stream())).allSatisfy(i -> assertThat(i.rows()).isPositive());
    assertThat(outcome.answersMatch()).isTrue();

    // Alluxio with its cache emptied before each query reads from S3 every time; warm RubiX and the local files never do
    assertThat(q3.get(BenchmarkConfiguration.ALLUXIO_COLD).iterations()).allSatisfy(i -> {
      assertThat(i.bytes()).isPositive();
      assertThat(i.gets()).isPositive();
    });
    assertThat(q3.get(BenchmarkConfiguration.RUBIX_WARM).iterations()).allSatisfy(i -> {
      assertThat(i.bytes()).isZero();
      assertThat(i.gets()).isZero();
    });
    assertThat(q3.get(BenchmarkConfiguration.LOCAL_FILE).iterations()).allSatisfy(i -> {
      assertThat(i.bytes()).isZero();
      assertThat(i.gets()).isZero();
      assertThat(i.heads()).isZero();
      assertThat(i.lists()).isZero();
    });

    Path dir = outcome.resultsDir();
    assertThat(dir.resolve("results.md")).content().contains("| q3 |", "**total**", "| configuration | GETs | HEADs | LISTs | MB sent |");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
    assertThat(csv).hasSize(1 + 3 + 3);
    assertThat(csv.get(0)).startsWith("query,configuration,median_ms,min_ms,max_ms,iterations,gets,heads,lists,bytes_from_s3");
    assertThat(csv).filteredOn(line -> line.startsWith("total,")).hasSize(3).allSatisfy(line -> {
      String[] fields = line.split(",");
      assertThat(Long.parseLong(fields[3])).isLessThanOrEqualTo(Long.parseLong(fields[2]));
      assertThat(Long.parseLong(fields[2])).isLessThanOrEqualTo(Long.parseLong(fields[4]));
      assertThat(fields[5]).isEqualTo("2");
    });
    assertThat(csv).filteredOn(line -> line.startsWith("total,rubix-warm,") || line.startsWith("total,local-file,"))
        .hasSize(2).allSatisfy(line -> assertThat(line.split(",")[10]).as("max bytes from S3 in a pass").isEqualTo("0"));
    assertThat(dir.resolve("charts/q3.png")).isNotEmptyFile();
    assertThat(dir.resolve("charts/total.png")).isNotEmptyFile();
    assertThat(dir.resolve("rubix-warm.log")).exists();

    // the same data as Parquet, beside the ORC tables: the same answer, and warm RubiX still reads nothing from S3
    String orcAnswer = q3.get(BenchmarkConfiguration.RUBIX_WARM).iterations().get(0).answer();
    BenchmarkOptions parquetOptions = BenchmarkOptions.parse("--scale", "0.01", "--format", "parquet", "--queries", "q3", "--iterations", "1",
        "--configs", "rubix-warm,local-file", "--latency-ms", "5", "--bandwidth", "0",
        "--data-dir", temp.resolve("data").toString(), "--results", temp.resolve("results").toString(),
        "--cache-dir", temp.resolve("cache").toString());
    bytes.reset();
    TpcdsBenchmark.Outcome parquet;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      parquet = new TpcdsBenchmark(parquetOptions, out).run();
    }
    String parquetOutput = bytes.toString(StandardCharsets.UTF_8);
    assertThat(parquetOutput).contains("generated store_sales (Parquet) at scale 0.01", "TPC-DS Parquet, scale 0.01");
    assertThat(parquetOutput).doesNotContain("(ORC) at scale");
    Map<BenchmarkConfiguration, QueryResult> parquetQ3 = byConfiguration(parquet.results());
    assertThat(parquetQ3.values().stream().flatMap(r -> r.iterations().stream()).map(Iteration::answer)).containsOnly(orcAnswer);
    assertThat(parquetQ3.get(BenchmarkConfiguration.RUBIX_WARM).iterations()).allSatisfy(i -> assertThat(i.gets()).isZero());
    assertThat(parquet.resultsDir().getFileName().toString()).startsWith("sf0_01-parquet-");
    assertThat(parquet.resultsDir().resolve("results.md")).content().startsWith("# TPC-DS Parquet on Spark");
    for (String format : List.of("orc", "parquet")) {
      assertThat(temp.resolve("data-local/sf0_01/" + format + "/store_sales")).isDirectory();
      assertThat(temp.resolve("data/rubix-tpcds/tpcds/sf0_01/" + format + "/store_sales")).exists();
    }
    try (var files = Files.list(temp.resolve("data-local/sf0_01/parquet/store_sales"))) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".") && !n.startsWith("_")))
          .isNotEmpty().allSatisfy(n -> assertThat(n).endsWith(".parquet"));
    }
  }

  /**
   * The same generated data as Iceberg tables and as Delta tables (Parquet data files): the same answer in both formats; warm RubiX
   * over Iceberg (CachingFileIO over S3FileIO, and HadoopFileIO over RubiX with the Iceberg rule set) asks the store nothing, and warm
   * RubiX over Delta with the Delta rule set fetches nothing and sends only the HEADs of its log (_delta_log,
   * _last_checkpoint); the run's own checks pass.
   */
  @Test
  void icebergAndDeltaTablesAnswerAlikeAndWarmReadsAskTheStoreNothingButTheDeltaLog() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TpcdsBenchmark.Outcome iceberg;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      iceberg = new TpcdsBenchmark(tableOptions("iceberg", "iceberg-s3fileio,rubix-fileio-warm,rubix-warm-rules"), out).run();
    }
    String icebergOutput = bytes.toString(StandardCharsets.UTF_8);
    assertThat(icebergOutput).contains("generated store_sales (Iceberg) at scale 0.01", "Check: rubix-fileio-warm: HEADs per pass 0: 0 (passed)",
        "Check: rubix-warm-rules: GETs per pass 0: 0 (passed)");
    assertThat(iceberg.answersMatch()).as(icebergOutput).isTrue();
    assertThat(iceberg.failedChecks()).as(icebergOutput).isEmpty();
    Map<BenchmarkConfiguration, QueryResult> icebergQ3 = byConfiguration(iceberg.results());
    assertThat(icebergQ3.get(BenchmarkConfiguration.ICEBERG_S3FILEIO).iterations()).allSatisfy(i -> assertThat(i.dataGets()).isPositive());
    for (BenchmarkConfiguration warm : List.of(BenchmarkConfiguration.RUBIX_FILEIO_WARM, BenchmarkConfiguration.RUBIX_WARM_RULES)) {
      assertThat(icebergQ3.get(warm).iterations()).as(warm.label()).allSatisfy(i -> {
        assertThat(i.gets()).isZero();
        assertThat(i.heads()).isZero();
        assertThat(i.bytes()).isZero();
      });
    }
    assertThat(temp.resolve("data-iceberg/rubix-tpcds-sf0_01.db")).isNotEmptyFile();

    bytes.reset();
    TpcdsBenchmark.Outcome delta;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      delta = new TpcdsBenchmark(tableOptions("delta", "s3a-classic,rubix-warm-rules,local-file"), out).run();
    }
    String deltaOutput = bytes.toString(StandardCharsets.UTF_8);
    assertThat(deltaOutput).contains("generated store_sales (Delta Lake) at scale 0.01", "HEAD(s) of _delta_log and _delta_log/_last_checkpoint per pass");
    assertThat(delta.answersMatch()).as(deltaOutput).isTrue();
    assertThat(delta.failedChecks()).as(deltaOutput).isEmpty();
    Map<BenchmarkConfiguration, QueryResult> deltaQ3 = byConfiguration(delta.results());
    assertThat(deltaQ3.get(BenchmarkConfiguration.RUBIX_WARM_RULES).iterations()).allSatisfy(i -> {
      assertThat(i.dataGets()).isZero();
      assertThat(i.dataHeads()).isZero();
      assertThat(i.heads()).isEqualTo(i.logHeads());
    });
    assertThat(deltaQ3.get(BenchmarkConfiguration.LOCAL_FILE).iterations()).allSatisfy(i -> assertThat(i.gets() + i.heads() + i.lists()).isZero());
    assertThat(temp.resolve("data-local/sf0_01/delta/store_sales/_delta_log")).isDirectory();

    String answer = icebergQ3.get(BenchmarkConfiguration.ICEBERG_S3FILEIO).iterations().get(0).answer();
    assertThat(deltaQ3.values().stream().flatMap(r -> r.iterations().stream()).map(Iteration::answer)).as("Delta's q3 answers Iceberg's")
        .containsOnly(answer);
  }

  private BenchmarkOptions tableOptions(String format, String configs) {
    return BenchmarkOptions.parse("--scale", "0.01", "--format", format, "--queries", "q3", "--iterations", "1", "--configs", configs,
        "--latency-ms", "5", "--bandwidth", "0", "--data-dir", temp.resolve("data").toString(), "--results", temp.resolve("results").toString(),
        "--cache-dir", temp.resolve("cache").toString());
  }

  @Test
  void aConfigurationJvmThatFailsFailsTheRunWithItsStderr() throws IOException {
    RunSpec spec = new RunSpec(BenchmarkConfiguration.S3A_CLASSIC, List.of("q999"), 1, "s3a://nowhere/", TableFormat.ORC, Map.of(), Map.of(), null,
        temp.resolve("cache").toString(), temp.resolve("out.json").toString());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      assertThatThrownBy(() -> ChildJvm.run(spec, temp.resolve("child.log"), out))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("The JVM running s3a-classic exited with 1")
          .hasMessageContaining("No tpcds/q999.sql on the classpath");
    }
  }

  @Test
  void optionsHaveDocumentedDefaults() {
    BenchmarkOptions options = BenchmarkOptions.parse();
    assertThat(options.latencyMs()).isEqualTo(30);
    assertThat(options.bandwidth()).isEqualTo(100_000_000L);
    assertThat(options.queries()).hasSizeGreaterThanOrEqualTo(20);
    // every configuration but the opt-in local-file-checksummed and the three Iceberg FileIO ones: the default run is the 9 the README names
    assertThat(options.configurations()).hasSize(BenchmarkConfiguration.values().length - 4)
        .doesNotContain(BenchmarkConfiguration.LOCAL_FILE_CHECKSUMMED, BenchmarkConfiguration.ICEBERG_S3FILEIO).contains(BenchmarkConfiguration.LOCAL_FILE);
    assertThat(BenchmarkOptions.parse("--format", "iceberg").configurations()).containsExactly(BenchmarkConfiguration.S3A_CLASSIC,
        BenchmarkConfiguration.RUBIX_COLD, BenchmarkConfiguration.RUBIX_WARM, BenchmarkConfiguration.RUBIX_WARM_RULES,
        BenchmarkConfiguration.ICEBERG_S3FILEIO, BenchmarkConfiguration.RUBIX_FILEIO_COLD, BenchmarkConfiguration.RUBIX_FILEIO_WARM);
    assertThat(BenchmarkOptions.parse("--format", "delta").configurations()).containsExactly(BenchmarkConfiguration.S3A_CLASSIC,
        BenchmarkConfiguration.S3A_ANALYTICS, BenchmarkConfiguration.RUBIX_COLD, BenchmarkConfiguration.RUBIX_WARM,
        BenchmarkConfiguration.RUBIX_WARM_RULES, BenchmarkConfiguration.LOCAL_FILE);
    assertThatThrownBy(() -> BenchmarkOptions.parse("--format", "iceberg", "--configs", "local-file"))
        .hasMessageContaining("local-file does not apply to --format iceberg");
    assertThatThrownBy(() -> BenchmarkOptions.parse("--format", "delta", "--configs", "rubix-fileio-warm"))
        .hasMessageContaining("--format delta has no Iceberg catalog");
    assertThat(options.seed()).isNull();
    assertThat(options.scaleKey()).isEqualTo("sf0_1");
    assertThat(options.format()).isEqualTo(TableFormat.ORC);
    assertThat(BenchmarkOptions.parse("--format", "parquet").format()).isEqualTo(TableFormat.PARQUET);
    assertThatThrownBy(() -> BenchmarkOptions.parse("--format", "avro")).hasMessageContaining("unknown --format avro");
    assertThat(BenchmarkOptions.parse("--seed", "42", "--scale", "1").seed()).isEqualTo(42L);
    assertThat(BenchmarkOptions.parse("--scale", "1").scaleKey()).isEqualTo("sf1");
    assertThat(BenchmarkOptions.parseBytes("1.5g")).isEqualTo(1_500_000_000L);
    assertThatThrownBy(() -> BenchmarkOptions.parse("--configs", "rubix-warm,rubix-warm")).hasMessageContaining("twice");
  }

  private static Map<BenchmarkConfiguration, QueryResult> byConfiguration(List<QueryResult> results) {
    assertThat(results).allSatisfy(r -> assertThat(r.query()).isEqualTo("q3"));
    return results.stream().collect(Collectors.toMap(QueryResult::configuration, r -> r));
  }
}
