package io.rubix.benchmarks.tpcds;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What one configuration's JVM measured.
 *
 * @param pid the process id of the JVM that ran it
 * @param sparkVersion the Spark version it ran
 * @param warmUpMillis its untimed warm-up query
 * @param results every query's timed iterations
 */
record RunResult(long pid, String sparkVersion, long warmUpMillis, List<QueryResult> results) {
  RunResult {
    requireNonNull(sparkVersion, "sparkVersion is null");
    results = List.copyOf(results);
  }
}
