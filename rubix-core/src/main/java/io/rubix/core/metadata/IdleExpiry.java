package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * When an unused object version expires ({@code rubix.cache.expire.after.idle}), by the wall clock,
 * which unlike {@link System#nanoTime} goes on across a restart: an object's last use is kept in its
 * journal, so a restarted service goes on counting from it. Off when the idle time is zero.
 *
 * <p>It runs its service's sweep on a thread of its own every {@link #sweepInterval}, a tenth of the
 * idle time within [1 s, 10 min]: an object expires at most that late, and a use not yet saved by a
 * sweep when the service dies makes it expire at most that early.
 */
final class IdleExpiry implements AutoCloseable {
  private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
  private static final Duration MAX_INTERVAL = Duration.ofMinutes(10);

  private final long idleMillis;
  private final LongSupplier wallMillis;
  /** Null until {@link #start}. */
  private ScheduledExecutorService sweeper;

  /**
   * @param idle how long an object version may go unread (zero: forever)
   * @param wallMillis the wall clock in milliseconds since the epoch (System::currentTimeMillis outside tests)
   */
  IdleExpiry(Duration idle, LongSupplier wallMillis) {
    if (idle.isNegative()) {
      throw new IllegalArgumentException("idle time is negative: " + idle);
    }
    this.idleMillis = idle.toMillis();
    this.wallMillis = requireNonNull(wallMillis, "wallMillis is null");
  }

  Duration idle() {
    return Duration.ofMillis(idleMillis);
  }

  boolean enabled() {
    return idleMillis > 0;
  }

  long nowMillis() {
    return wallMillis.getAsLong();
  }

  /** Whether an object last used at {@code lastUsedMillis} has gone unread too long at {@code nowMillis}. */
  boolean expired(long lastUsedMillis, long nowMillis) {
    return enabled() && nowMillis - lastUsedMillis >= idleMillis;
  }

  Duration sweepInterval() {
    Duration tenth = Duration.ofMillis(Math.max(1, idleMillis / 10));
    return tenth.compareTo(MIN_INTERVAL) < 0 ? MIN_INTERVAL : tenth.compareTo(MAX_INTERVAL) > 0 ? MAX_INTERVAL : tenth;
  }

  /** Runs {@code sweep} every {@link #sweepInterval} on a daemon thread until {@link #close}; nothing when off. */
  synchronized void start(Runnable sweep, String name) {
    if (!enabled() || sweeper != null) {
      return;
    }
    sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    });
    long interval = sweepInterval().toMillis();
    sweeper.scheduleWithFixedDelay(sweep, interval, interval, TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    if (sweeper != null) {
      sweeper.shutdownNow();
    }
  }
}
