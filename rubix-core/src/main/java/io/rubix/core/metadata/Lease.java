package io.rubix.core.metadata;

import java.util.BitSet;

/** Blocks granted to one reader to fetch. Guarded by the owning service's lock. */
final class Lease {
  final long id;
  final CachedObject object;
  final BitSet blocks = new BitSet();
  final long deadlineNanos;

  Lease(long id, CachedObject object, long deadlineNanos) {
    this.id = id;
    this.object = object;
    this.deadlineNanos = deadlineNanos;
  }
}
