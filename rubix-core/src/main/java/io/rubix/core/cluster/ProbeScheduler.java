package io.rubix.core.cluster;

/** Runs the liveness tracker's probes later, off the read path. */
interface ProbeScheduler extends AutoCloseable {
  /** Runs {@code task} once, about {@code delayNanos} from now; does nothing once closed. */
  void schedule(Runnable task, long delayNanos);

  /** Drops the tasks not run yet. Idempotent. */
  @Override
  void close();
}
