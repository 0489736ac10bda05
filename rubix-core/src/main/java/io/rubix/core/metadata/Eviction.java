package io.rubix.core.metadata;

import java.util.List;

/**
 * What an eviction choice found ({@link SpaceLedger#victims}, {@link SpaceLedger#quotaVictims}): the
 * objects to evict (null when the bytes do not fit), and whether they do not fit because the eviction
 * policy refused the requester, not for want of space.
 */
record Eviction(List<CachedObject> victims, boolean rejected) {
  static final Eviction NO_ROOM = new Eviction(null, false);
  static final Eviction NONE = new Eviction(List.of(), false);
  static final Eviction REJECTED = new Eviction(null, true);

  boolean fits() {
    return victims != null;
  }

  /** Whether {@code object} may be evicted to make room for {@code requester}: not the requester, not pinned, holding space. */
  static boolean evictable(CachedObject object, CachedObject requester) {
    return object != requester && !object.pinned() && object.chargedBytes > 0;
  }
}
