package io.rubix.benchmarks.tpcds;

import static java.util.Objects.requireNonNull;

/**
 * One timed run of one query.
 *
 * @param millis wall time
 * @param rows rows of the answer
 * @param answer SHA-256 of the answer's rows, sorted, as text: equal answers have equal digests
 * @param gets GET requests the S3 server answered during the run (-1: not measured, external endpoint)
 * @param heads HEAD requests (-1: not measured)
 * @param lists LIST requests (-1: not measured)
 * @param bytes body bytes the S3 server sent (-1: not measured)
 */
record Iteration(long millis, long rows, String answer, long gets, long heads, long lists, long bytes) {
  Iteration {
    requireNonNull(answer, "answer is null");
    if (millis < 0 || rows < 0) {
      throw new IllegalArgumentException("negative time or row count: " + millis + " ms, " + rows + " rows");
    }
  }
}
