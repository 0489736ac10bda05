package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The pending waits of a metadata service for blocks to leave the in-flight state, each answered when
 * they do or at its deadline, without a waiting thread (the daemon answers its clients' waits with
 * them, so a waiting client never occupies a server worker).
 *
 * <p>Threads and ownership: guarded by the owning service's lock. One scheduler thread, started with
 * the first wait, runs the service's recheck (which takes that lock) when a deadline or a lease expiry
 * may have settled a waiter, and completes the futures: a waiter's continuation (a Thrift answer)
 * never runs under the lock. At most {@value #MAX_WAITERS} waits are pending at once. The lock is
 * the service's, which this class cannot name, so its fields carry no {@code @GuardedBy}: Error
 * Prone checks the lock where the service reaches its parts, through its {@code @GuardedBy("lock")}
 * fields.
 */
final class SettleWaiters {
  /** Most waits pending at once. */
  static final int MAX_WAITERS = 10_000;

  /** A caller waiting for blocks {@code [first, end)} of {@code version}. */
  record Waiter(ObjectVersion version, int first, int end, long deadlineNanos, CompletableFuture<BlockRange> future) {}

  /** What a waiter is answered now, or null while it waits on. */
  interface Settlement {
    BlockRange settled(Waiter waiter, long nowNanos);
  }

  private final List<Waiter> waiters = new ArrayList<>();
  private final LongSupplier nanoClock;
  private final Runnable recheck;
  private ScheduledExecutorService scheduler;
  /** When the next scheduled recheck runs, or Long.MIN_VALUE when none is scheduled. */
  private long nextRecheckNanos = Long.MIN_VALUE;

  /** @param recheck the service's recheck: takes its lock, calls {@link #rechecking}, settles, and schedules the next */
  SettleWaiters(LongSupplier nanoClock, Runnable recheck) {
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    this.recheck = requireNonNull(recheck, "recheck is null");
  }

  boolean full() {
    return waiters.size() >= MAX_WAITERS;
  }

  boolean isEmpty() {
    return waiters.isEmpty();
  }

  List<Waiter> pending() {
    return Collections.unmodifiableList(waiters);
  }

  /** A new waiter for blocks {@code [first, end)} of {@code version} until {@code timeoutMillis} from now. */
  Waiter add(ObjectVersion version, int first, int end, long timeoutMillis) {
    Waiter waiter = new Waiter(version, first, end, nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), new CompletableFuture<>());
    waiters.add(waiter);
    return waiter;
  }

  /** Answers and removes the waiters {@code settlement} settles. */
  void settle(Settlement settlement) {
    long now = nanoClock.getAsLong();
    Iterator<Waiter> it = waiters.iterator();
    while (it.hasNext()) {
      Waiter waiter = it.next();
      BlockRange range = settlement.settled(waiter, now);
      if (range != null) {
        it.remove();
        complete(waiter, range);
      }
    }
  }

  /** The scheduled recheck is running: the next one must be scheduled anew. */
  void rechecking() {
    nextRecheckNanos = Long.MIN_VALUE;
  }

  /** Runs the recheck at {@code atNanos} unless one runs at or before then already. */
  void scheduleRecheck(long atNanos) {
    if (nextRecheckNanos != Long.MIN_VALUE && nextRecheckNanos - atNanos <= 0) {
      return;
    }
    if (scheduler == null) {
      scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "rubix-metadata-waits");
        thread.setDaemon(true);
        return thread;
      });
    }
    nextRecheckNanos = atNanos;
    long delay = Math.max(TimeUnit.MILLISECONDS.toNanos(1), atNanos - nanoClock.getAsLong());
    try {
      scheduler.schedule(recheck, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      // the service is closing: it settles every waiter
    }
  }

  /** Stops the scheduler once the answers already given are delivered. */
  void close() {
    if (scheduler != null) {
      scheduler.shutdown();
    }
  }

  private void complete(Waiter waiter, BlockRange range) {
    if (scheduler == null) {
      waiter.future().complete(range);
      return;
    }
    try {
      scheduler.execute(() -> waiter.future().complete(range));
    } catch (RejectedExecutionException closed) {
      waiter.future().complete(range);
    }
  }
}
