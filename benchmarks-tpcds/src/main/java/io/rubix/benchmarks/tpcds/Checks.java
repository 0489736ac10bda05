package io.rubix.benchmarks.tpcds;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * What a run must show, beyond equal answers, or it fails (the benchmark exits 1): the S3 requests of
 * the warm RubiX configurations and the bytes the cold ones fetch. Each check prints one line,
 * {@code Check: ... (passed)} or {@code (FAILED)}; a check whose configurations did not run, or whose
 * counters were not measured (an external endpoint), prints why it was skipped.
 *
 * <ul>
 *   <li>Every warm RubiX configuration fetches no data file in any timed pass.
 *   <li>Warm with path rules (and CachingFileIO warm) sends no HEAD for a data file. Over Iceberg tables
 *       (both routes: CachingFileIO over S3FileIO, HadoopFileIO over RubiX with the Iceberg rule set) a
 *       warm pass sends no request at all: 0 GETs and 0 HEADs. Over Delta tables, with the Delta rule
 *       set, a warm pass fetches nothing (0 GETs) and its only HEADs are of each table's log: the
 *       {@code _delta_log} directory, which Delta probes before every query's snapshot update, and
 *       {@code _delta_log/_last_checkpoint}, which stays strict (counted and printed).
 *   <li>Over Iceberg and Delta tables, a cold pass fetches at most {@value #COLD_BYTES_LIMIT}x the bytes
 *       of the same route read directly: rubix-fileio-cold against iceberg-s3fileio, rubix-cold against
 *       s3a-classic (or s3a-analytics when classic did not run).
 *   <li>Over Iceberg tables, a cold pass through CachingFileIO sends no more GETs and no more HEADs than
 *       S3FileIO alone (both load every table's metadata again for each query).
 * </ul>
 */
final class Checks {
  static final double COLD_BYTES_LIMIT = 1.3;

  private final BenchmarkOptions options;
  private final Report report;
  private final PrintStream out;
  private final List<String> failed = new ArrayList<>();

  private Checks(BenchmarkOptions options, Report report, PrintStream out) {
    this.options = options;
    this.report = report;
    this.out = out;
  }

  /** Runs the checks that apply to the run, prints them, and returns the failed ones' descriptions. */
  static List<String> check(BenchmarkOptions options, Report report, PrintStream out) {
    Checks checks = new Checks(options, report, out);
    checks.run();
    return List.copyOf(checks.failed);
  }

  private void run() {
    TableFormat format = options.format();
    for (BenchmarkConfiguration c : options.configurations()) {
      if (c.rubix() && c.warmedUp()) {
        zero(c, "data-file GETs", Iteration::dataGets);
      }
    }
    if (format == TableFormat.ICEBERG) {
      for (BenchmarkConfiguration c : List.of(BenchmarkConfiguration.RUBIX_FILEIO_WARM, BenchmarkConfiguration.RUBIX_WARM_RULES)) {
        zero(c, "GETs", Iteration::gets);
        zero(c, "HEADs", Iteration::heads);
      }
    } else {
      zero(BenchmarkConfiguration.RUBIX_WARM_RULES, "data-file HEADs", Iteration::dataHeads);
    }
    if (format == TableFormat.DELTA && options.configurations().contains(BenchmarkConfiguration.RUBIX_WARM_RULES)) {
      zero(BenchmarkConfiguration.RUBIX_WARM_RULES, "GETs", Iteration::gets);
      zero(BenchmarkConfiguration.RUBIX_WARM_RULES, "HEADs other than the log's (_delta_log, _last_checkpoint)",
          i -> i.heads() < 0 || i.logHeads() < 0 ? -1 : i.heads() - i.logHeads());
      Spread log = report.served(BenchmarkConfiguration.RUBIX_WARM_RULES, Iteration::logHeads);
      if (log.median() >= 0) {
        out.printf(Locale.ROOT, "Counted: rubix-warm-rules sends %s HEAD(s) of _delta_log and _delta_log/_last_checkpoint per pass over %d"
            + " queries (Delta probes each table's log before every query; no cache answers that)%n", log.text(), options.queries().size());
      }
    }
    if (format.openTable()) {
      coldBytes(BenchmarkConfiguration.RUBIX_FILEIO_COLD, List.of(BenchmarkConfiguration.ICEBERG_S3FILEIO));
      noMore(BenchmarkConfiguration.RUBIX_FILEIO_COLD, BenchmarkConfiguration.ICEBERG_S3FILEIO, "GETs", Iteration::gets);
      noMore(BenchmarkConfiguration.RUBIX_FILEIO_COLD, BenchmarkConfiguration.ICEBERG_S3FILEIO, "HEADs", Iteration::heads);
      coldBytes(BenchmarkConfiguration.RUBIX_COLD, List.of(BenchmarkConfiguration.S3A_CLASSIC, BenchmarkConfiguration.S3A_ANALYTICS));
    }
  }

  /** {@code c}'s {@code counter} is 0 in every timed pass. */
  private void zero(BenchmarkConfiguration c, String what, ToLongFunction<Iteration> counter) {
    if (!options.configurations().contains(c)) {
      return;
    }
    String check = c.label() + ": " + what + " per pass 0";
    Spread spread = report.served(c, counter);
    if (spread.median() < 0) {
      out.println("Check skipped: " + check + ": the store's requests were not counted (external endpoint)");
      return;
    }
    verdict(check + ": " + spread.text(), spread.max() == 0);
  }

  /** {@code cold}'s median bytes from S3 are at most {@link #COLD_BYTES_LIMIT} times those of the first of {@code directs} that ran. */
  private void coldBytes(BenchmarkConfiguration cold, List<BenchmarkConfiguration> directs) {
    if (!options.configurations().contains(cold)) {
      return;
    }
    BenchmarkConfiguration direct = directs.stream().filter(options.configurations()::contains).findFirst().orElse(null);
    if (direct == null) {
      out.println("Check skipped: " + cold.label() + "'s bytes from S3 against the direct route's: none of " + directs.stream()
          .map(BenchmarkConfiguration::label).toList() + " ran");
      return;
    }
    long coldBytes = report.served(cold, Iteration::bytes).median();
    long directBytes = report.served(direct, Iteration::bytes).median();
    if (coldBytes < 0 || directBytes <= 0) {
      out.println("Check skipped: " + cold.label() + "'s bytes from S3 against " + direct.label() + "'s: not counted");
      return;
    }
    double ratio = (double) coldBytes / directBytes;
    verdict(String.format(Locale.ROOT, "%s bytes from S3 <= %.1fx %s's: %.2f MB vs %.2f MB, %.2fx", cold.label(), COLD_BYTES_LIMIT,
        direct.label(), coldBytes / 1e6, directBytes / 1e6, ratio), ratio <= COLD_BYTES_LIMIT);
  }

  /** {@code cold}'s median {@code what} per pass is at most {@code direct}'s, when both ran and were counted. */
  private void noMore(BenchmarkConfiguration cold, BenchmarkConfiguration direct, String what, ToLongFunction<Iteration> counter) {
    if (!options.configurations().contains(cold) || !options.configurations().contains(direct)) {
      return;
    }
    long mine = report.served(cold, counter).median();
    long theirs = report.served(direct, counter).median();
    if (mine < 0 || theirs < 0) {
      out.println("Check skipped: " + cold.label() + "'s " + what + " against " + direct.label() + "'s: not counted");
      return;
    }
    verdict(String.format(Locale.ROOT, "%s %s per pass <= %s's: %d vs %d", cold.label(), what, direct.label(), mine, theirs), mine <= theirs);
  }

  private void verdict(String check, boolean passed) {
    out.println("Check: " + check + (passed ? " (passed)" : " (FAILED)"));
    if (!passed) {
      failed.add(check);
    }
  }
}
