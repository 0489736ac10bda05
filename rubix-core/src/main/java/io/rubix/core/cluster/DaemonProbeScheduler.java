package io.rubix.core.cluster;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread that exists only while probes are pending: it is started by the first task and
 * ends after ten idle seconds, so a cluster whose nodes all answer costs no thread.
 */
final class DaemonProbeScheduler implements ProbeScheduler {
  private final ScheduledThreadPoolExecutor executor;

  DaemonProbeScheduler(String threadName) {
    this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
    executor.setKeepAliveTime(10, TimeUnit.SECONDS);
    executor.allowCoreThreadTimeOut(true);
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    try {
      executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closed: nothing to probe any more
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
