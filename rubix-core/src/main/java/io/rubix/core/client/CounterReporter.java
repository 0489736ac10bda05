package io.rubix.core.client;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.stats.CacheStats;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what one file system's reads counted to the node's BookKeeper, every
 * {@code rubix.network.client.counters.interval} and once more when it closes, so the daemon can show
 * node-wide hit ratios and fallbacks that only the reading JVMs see. Each report holds what changed
 * since the last report the daemon took: a report that fails (daemon down, backing off) is folded into
 * the next, so nothing is counted twice or lost while the JVM lives. A daemon that does not know the
 * call ends the reports; reads never wait for them.
 */
public final class CounterReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CounterReporter.class);

  private final CacheStats stats;
  private final BookKeeperClient client;
  /** Null when reports are off. */
  private final ScheduledExecutorService timer;
  /** The totals the daemon has taken. */
  @GuardedBy("this")
  private final Map<String, Long> reported = new HashMap<>();
  @GuardedBy("this")
  private boolean stopped;

  private CounterReporter(CacheStats stats, BookKeeperClient client, Duration interval, String name) {
    this.stats = requireNonNull(stats, "stats is null");
    this.client = requireNonNull(client, "client is null");
    this.timer = interval.isZero() ? null : Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "rubix-counters-" + name);
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Reports {@code stats} through {@code client} every {@code interval} (zero: never) until {@link #close}. */
  public static CounterReporter start(CacheStats stats, BookKeeperClient client, Duration interval, String name) {
    CounterReporter reporter = new CounterReporter(stats, client, interval, name);
    if (reporter.timer != null) {
      long millis = Math.max(1, interval.toMillis());
      reporter.timer.scheduleWithFixedDelay(reporter::report, millis, millis, TimeUnit.MILLISECONDS);
    }
    return reporter;
  }

  /** Sends what changed since the last report the daemon took, if anything did; never throws. */
  public synchronized void report() {
    if (stopped || timer == null) {
      return;
    }
    Map<String, Long> now = stats.snapshot();
    Map<String, Long> deltas = new LinkedHashMap<>();
    now.forEach((name, value) -> {
      long delta = value - reported.getOrDefault(name, 0L);
      if (delta > 0) {
        deltas.put(name, delta);
      }
    });
    if (deltas.isEmpty()) {
      return;
    }
    try {
      client.reportCounters(deltas);
      reported.putAll(now);
    } catch (UnknownCallException e) {
      stopped = true;
      LOG.info("The BookKeeper does not take counter reports (an older version); this JVM's counters stay in its JMX beans only");
    } catch (IOException | RuntimeException e) {
      LOG.debug("Counter report failed; it goes with the next one", e);
    }
  }

  /** Stops the timer and sends a last report; call it before the client closes. */
  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
    report();
    synchronized (this) {
      stopped = true;
    }
  }
}
