package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Waits for blocks another fetcher holds: {@link #whenSettled} without a thread (the daemon answers
 * its clients' waits with it), {@link #awaitInFlight} blocking the caller (embedded mode). Both end
 * when none of the blocks is in flight, or at the deadline; a lease that expires meanwhile ends the
 * wait for its blocks.
 */
final class InFlightWaits {
  private final ServiceState state;

  InFlightWaits(ServiceState state) {
    this.state = state;
  }

  /** See {@link InProcessMetadataService#whenSettled}. */
  CompletableFuture<BlockRange> whenSettled(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) {
    state.checkRange(version, firstBlock, endBlock);
    state.lock.lock();
    try {
      state.expireLeases();
      CachedObject object = state.objects.get(version);
      if (object == null || !BlockRanges.anyInFlight(object, firstBlock, endBlock) || timeoutMillis <= 0 || state.waiters.full()) {
        return CompletableFuture.completedFuture(BlockRanges.describe(version, object, firstBlock, endBlock, null));
      }
      SettleWaiters.Waiter waiter = state.waiters.add(version, firstBlock, endBlock, timeoutMillis);
      state.waiters.scheduleRecheck(state.nextRecheckNanos(waiter, object));
      return waiter.future();
    } finally {
      state.lock.unlock();
    }
  }

  /** See {@link InProcessMetadataService#awaitInFlight}. */
  BlockRange awaitInFlight(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) throws InterruptedException {
    state.checkRange(version, firstBlock, endBlock);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    state.lock.lock();
    try {
      while (true) {
        state.expireLeases();
        CachedObject object = state.objects.get(version);
        long remaining = deadline - System.nanoTime();
        if (object == null || !BlockRanges.anyInFlight(object, firstBlock, endBlock) || remaining <= 0) {
          return BlockRanges.describe(version, object, firstBlock, endBlock, null);
        }
        long untilExpiry = Long.MAX_VALUE;
        for (long leaseId : object.inFlight.values()) {
          Lease lease = state.leases.get(leaseId);
          if (lease != null) {
            untilExpiry = Math.min(untilExpiry, lease.deadlineNanos - state.nanoClock.getAsLong());
          }
        }
        state.inFlightCondition.awaitNanos(Math.max(1, Math.min(remaining, untilExpiry)));
      }
    } finally {
      state.lock.unlock();
    }
  }
}
