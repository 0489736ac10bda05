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
 * @param dataGets GETs of the tables' data files (ORC or Parquet files; not Delta checkpoints, not Iceberg metadata; -1: not measured)
 * @param dataHeads HEADs of the tables' data files (-1: not measured)
 * @param logHeads HEADs of what tells a reader the table's current version: Delta's {@code _delta_log} directory and
 *     {@code _delta_log/_last_checkpoint}, a Hadoop catalog's {@code metadata/version-hint.text} (-1: not measured)
 */
record Iteration(long millis, long rows, String answer, long gets, long heads, long lists, long bytes, long dataGets, long dataHeads,
    long logHeads) {
  /** Without the per-object counts. */
  Iteration(long millis, long rows, String answer, long gets, long heads, long lists, long bytes) {
    this(millis, rows, answer, gets, heads, lists, bytes, -1, -1, -1);
  }

  Iteration {
    requireNonNull(answer, "answer is null");
    if (millis < 0 || rows < 0) {
      throw new IllegalArgumentException("negative time or row count: " + millis + " ms, " + rows + " rows");
    }
  }
}
