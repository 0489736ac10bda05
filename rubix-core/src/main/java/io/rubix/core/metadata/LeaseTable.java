package io.rubix.core.metadata;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The live leases of a metadata service: blocks granted to one reader each to fetch, until it
 * commits or aborts them or the lease expires. Kept in creation order, which is deadline order (all
 * have the same timeout). Guarded by the owning service's lock. That lock is the service's, which
 * this class cannot name, so its fields carry no {@code @GuardedBy}: Error Prone checks the lock
 * where the service reaches its parts, through its {@code @GuardedBy("lock")} fields.
 *
 * <p>Ids start at a random point so that ids of a previous incarnation of the service (a crashed and
 * restarted BookKeeper, whose readers still hold grants) never name a lease of this one: a stale
 * commit is then ignored instead of publishing a block someone else was granted and has not written.
 */
final class LeaseTable {
  private final Map<Long, Lease> leases = new LinkedHashMap<>();
  private final long timeoutNanos;
  private long nextId = ThreadLocalRandom.current().nextLong(1, 1L << 62);

  LeaseTable(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
  }

  /** A new lease on {@code object} that ends one timeout after {@code nowNanos}; live once {@linkplain #add added}. */
  Lease create(CachedObject object, long nowNanos) {
    return new Lease(nextId++, object, nowNanos + timeoutNanos);
  }

  void add(Lease lease) {
    leases.put(lease.id, lease);
  }

  /** The live lease {@code id}, or null. */
  Lease get(long id) {
    return leases.get(id);
  }

  /** Removes live lease {@code id}; the removed lease, or null. */
  Lease remove(long id) {
    return leases.remove(id);
  }

  /** Removes {@code lease} once it holds no block. */
  void finishIfDone(Lease lease) {
    if (lease.blocks.isEmpty()) {
      leases.remove(lease.id);
    }
  }

  /** Removes and returns the leases whose deadline passed at {@code nowNanos}. */
  List<Lease> expire(long nowNanos) {
    List<Lease> expired = new ArrayList<>();
    Iterator<Lease> it = leases.values().iterator();
    while (it.hasNext()) {
      Lease lease = it.next();
      if (nowNanos - lease.deadlineNanos < 0) {
        break; // every later lease expires later still
      }
      it.remove();
      expired.add(lease);
    }
    return expired;
  }

  void clear() {
    leases.clear();
  }
}
