package io.rubix.core.metadata;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.insight.CacheInsight;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.DataFileLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every part of the metadata service reads and changes, under its one {@link #lock}: the objects
 * tracked, grants, space, leases, rules, waiters and counters, and the few steps every operation
 * takes (expire leases, touch an object, tell waiters that blocks left the in-flight state, delete
 * dropped files after the lock). The operations live in {@link InProcessMetadataService}'s parts
 * ({@link Acquisitions}, {@link Commits}, {@link InFlightWaits}, {@link Administration},
 * {@link Housekeeping}); each takes this lock, decides with the state, releases it, and only then
 * does I/O through {@link #files}.
 */
final class ServiceState {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceState.class);

  final ReentrantLock lock = new ReentrantLock();
  /** Signalled when blocks leave the in-flight state or an object's files are created. */
  final Condition inFlightCondition = lock.newCondition();
  final int blockSize;
  final DataFileLayout layout;
  final LongSupplier nanoClock;
  final long maxObjects;
  /** The journal and data files: only ever called without the lock. */
  final ObjectFiles files;
  /** Counters per table and the working-set estimate: told of every answer, commit and eviction (its own lock). */
  final CacheInsight insight;
  final IdleExpiry idleExpiry;
  /** Whether the eviction policy adapts to the hit ratio of reads (TinyLFU's window): only then are reads' bytes told to it. */
  final boolean adaptive;

  @GuardedBy("lock")
  final SpaceLedger space;
  @GuardedBy("lock")
  final RuleQuotas rules;
  @GuardedBy("lock")
  final LeaseTable leases;
  @GuardedBy("lock")
  final SettleWaiters waiters;
  @GuardedBy("lock")
  final ObjectTable objects;
  @GuardedBy("lock")
  final Grants grants;
  @GuardedBy("lock")
  long expirations;
  @GuardedBy("lock")
  long recoveredBlocks;
  @GuardedBy("lock")
  long refusedBlocks;
  @GuardedBy("lock")
  long recoveryProblems;

  ServiceState(ServiceOptions options) {
    this.blockSize = options.blockSize();
    this.maxObjects = options.maxObjects();
    this.layout = new DataFileLayout(options.roots());
    this.nanoClock = options.nanoClock();
    this.space = new SpaceLedger(options.roots(), options.capacities(), nanoClock, options.evictionPolicy());
    this.adaptive = space.adaptive();
    this.rules = new RuleQuotas(options.rules(), options.totalCapacity());
    this.leases = new LeaseTable(options.leaseTimeout().toNanos());
    this.waiters = new SettleWaiters(nanoClock, this::recheckWaiters);
    this.files = new ObjectFiles(options.journal(), blockSize);
    this.idleExpiry = new IdleExpiry(options.expireAfterIdle(), options.wallMillis());
    this.insight = new CacheInsight(options.insight(), blockSize, options.totalCapacity(), nanoClock);
    // Error Prone assumes a method reference runs later, without the lock; ObjectTable runs this one
    // only from its own methods, which run under the lock
    @SuppressWarnings("GuardedBy")
    Runnable inFlightChanged = this::inFlightChanged;
    this.objects = new ObjectTable(space, leases, insight, inFlightChanged);
    this.grants = new Grants(objects, space, rules, layout, idleExpiry, blockSize, maxObjects);
  }

  /** Counts a read of {@code object} (LRU order; the wall clock of its last use when idle expiry is on); null when not tracked. */
  @GuardedBy("lock")
  CachedObject touch(ObjectVersion version, int firstBlock) {
    CachedObject object = objects.get(version);
    if (object != null) {
      space.touch(object, firstBlock);
      if (idleExpiry.enabled()) {
        // only idle expiry reads it: no clock read on every status when it is off
        object.lastUsedMillis = idleExpiry.nowMillis();
        object.useUnsaved = true;
      }
    }
    return object;
  }

  /** Ends the leases (and write fences) past their deadline: their unfetched blocks are no longer in flight. */
  @GuardedBy("lock")
  void expireLeases() {
    space.expireFences();
    List<Lease> expired = leases.expire(nanoClock.getAsLong());
    for (Lease lease : expired) {
      LOG.warn("Lease {} on {} expired with {} blocks unfetched", lease.id, lease.object.version, lease.blocks.cardinality());
      lease.blocks.stream().forEach(lease.object.inFlight::remove);
    }
    if (!expired.isEmpty()) {
      inFlightChanged();
    }
  }

  /** Wakes blocking waiters and answers settled {@link InFlightWaits#whenSettled} waiters: blocks left the in-flight state. */
  @GuardedBy("lock")
  void inFlightChanged() {
    inFlightCondition.signalAll();
    if (!waiters.isEmpty()) {
      settleWaiters();
    }
  }

  /** When {@code waiter} must be looked at again without a change: its deadline, or the first expiry of a lease it waits for. */
  @GuardedBy("lock")
  long nextRecheckNanos(SettleWaiters.Waiter waiter, CachedObject object) {
    long at = waiter.deadlineNanos();
    for (Map.Entry<Integer, Long> entry : object.inFlight.entrySet()) {
      Lease lease = leases.get(entry.getValue());
      if (lease != null && entry.getKey() >= waiter.first() && entry.getKey() < waiter.end()) {
        at = Math.min(at, lease.deadlineNanos);
      }
    }
    return at;
  }

  /** Runs on the waiters' scheduler when a deadline or a lease expiry may have settled a waiter. */
  private void recheckWaiters() {
    lock.lock();
    try {
      waiters.rechecking();
      expireLeases();
      settleWaiters();
      long next = Long.MAX_VALUE;
      for (SettleWaiters.Waiter waiter : waiters.pending()) {
        CachedObject object = objects.get(waiter.version());
        if (object != null) {
          next = Math.min(next, nextRecheckNanos(waiter, object));
        }
      }
      if (next != Long.MAX_VALUE) {
        waiters.scheduleRecheck(next);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Answers the waiters whose blocks left the in-flight state or whose deadline passed. */
  @GuardedBy("lock")
  private void settleWaiters() {
    // Error Prone assumes a lambda runs later, without the lock; SettleWaiters.settle runs this one
    // at once, on this thread, which holds the lock
    @SuppressWarnings("GuardedBy")
    SettleWaiters.Settlement settlement = (waiter, now) -> {
      CachedObject object = objects.get(waiter.version());
      boolean settled = object == null || !BlockRanges.anyInFlight(object, waiter.first(), waiter.end()) || now - waiter.deadlineNanos() >= 0;
      return settled ? BlockRanges.describe(waiter.version(), object, waiter.first(), waiter.end(), null) : null;
    };
    waiters.settle(settlement);
  }

  /** Deletes the files of dropped objects (see {@link ObjectFiles#delete}), then gives back their charge. Without the lock. */
  void deleteFiles(List<CachedObject> dropped) {
    for (CachedObject object : dropped) {
      boolean gone = files.delete(object);
      lock.lock();
      try {
        space.released(object, gone);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Refuses a block range outside {@code version} or longer than one call may name. */
  void checkRange(ObjectVersion version, int firstBlock, int endBlock) {
    if ((long) endBlock - firstBlock > CacheMetadataService.MAX_BLOCKS_PER_CALL) {
      throw new IllegalArgumentException("Block range [" + firstBlock + ", " + endBlock + ") of " + version + " names more than "
          + CacheMetadataService.MAX_BLOCKS_PER_CALL + " blocks, the most one call may name");
    }
    int blocks = version.blockCount(blockSize);
    if (firstBlock < 0 || endBlock > blocks || firstBlock > endBlock) {
      throw new IllegalArgumentException("Block range [" + firstBlock + ", " + endBlock + ") outside " + version
          + " which has " + blocks + " blocks of " + blockSize + " bytes");
    }
  }

  /** The counters, read together under the lock. */
  ServiceCounters counters() {
    lock.lock();
    try {
      List<RuleUsage> ruleUsage = rules.spaces().stream()
          .map(r -> new RuleUsage(r.name, r.quotaBytes, r.usedBytes, r.lru.size(), r.evictions, r.denials))
          .toList();
      return new ServiceCounters(recoveredBlocks, recoveryProblems, refusedBlocks, objects.admissionRejections(), space.windowShare(),
          expirations, rules.excludedRequests(), ruleUsage);
    } finally {
      lock.unlock();
    }
  }
}
