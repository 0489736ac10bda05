package io.rubix.benchmarks.tpcds;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;

/**
 * The timed runs of one query in one configuration.
 *
 * @param millis wall time of each iteration
 * @param bytesFromS3 bytes the S3 server sent during each iteration (-1: not measured, external endpoint)
 * @param answerMatches whether every iteration's answer equals the reference configuration's
 */
record QueryResult(String query, BenchmarkConfiguration configuration, List<Long> millis, List<Long> bytesFromS3, boolean answerMatches) {
  QueryResult {
    requireNonNull(query, "query is null");
    requireNonNull(configuration, "configuration is null");
    millis = List.copyOf(millis);
    bytesFromS3 = List.copyOf(bytesFromS3);
  }

  long medianMillis() {
    long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  long medianBytes() {
    long[] sorted = bytesFromS3.stream().mapToLong(Long::longValue).sorted().toArray();
    return sorted.length == 0 ? -1 : sorted[sorted.length / 2];
  }

  @Override
  public String toString() {
    return query + "/" + configuration.label() + " " + Arrays.toString(millis.toArray());
  }
}
