package io.rubix.core.metadata;

import io.rubix.core.metadata.journal.MetadataJournal;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * A service's start from what its journal recovered: the objects it rebuilds, charges and orders for
 * eviction, and those it drops at once (on no disk any more, twice recovered, excluded by today's
 * rules, expired unread, or beyond today's caps, quotas and most objects). Runs once, under the owning
 * service's lock; the journal is read, and the files of the dropped objects deleted, by the service
 * outside it.
 */
final class JournalRecovery {
  /** What a recovery found: blocks published, objects expired unread and entries dropped as invalid. */
  record Outcome(long blocks, long expired, long problems) {}

  private final ObjectTable objects;
  private final SpaceLedger space;
  private final RuleQuotas rules;
  private final LeaseTable leases;
  private final IdleExpiry idleExpiry;
  private final int blockSize;
  private final long maxObjects;

  JournalRecovery(ObjectTable objects, SpaceLedger space, RuleQuotas rules, LeaseTable leases, IdleExpiry idleExpiry, int blockSize,
      long maxObjects) {
    this.objects = objects;
    this.space = space;
    this.rules = rules;
    this.leases = leases;
    this.idleExpiry = idleExpiry;
    this.blockSize = blockSize;
    this.maxObjects = maxObjects;
  }

  /**
   * Rebuilds the objects of {@code recovery} in {@code objects}, the blocks they hold charged but
   * unpublished fenced from {@code recoveredAtNanos} (see {@link FencedWrites}); the objects whose files
   * must go are added to {@code evicted}.
   */
  Outcome restore(MetadataJournal.Recovery recovery, long recoveredAtNanos, List<CachedObject> evicted) {
    long now = idleExpiry.nowMillis();
    // least recently used first, so each disk's LRU order is what it was before the restart
    List<MetadataJournal.Recovered> byLastUse = new ArrayList<>(recovery.objects());
    byLastUse.sort(Comparator.comparingLong(MetadataJournal.Recovered::lastUsedMillis));
    long blocks = 0;
    long expired = 0;
    long problems = 0;
    for (MetadataJournal.Recovered r : byLastUse) {
      if (r.disk() < 0 || r.disk() >= space.diskCount()) {
        problems++;
        continue;
      }
      CachedObject object = new CachedObject(r.version(), r.disk(), r.dataFile(), blockSize);
      if (!rules.caches(r.version().path())) {
        // cached under other rules: its path is excluded now
        evicted.add(object);
        continue;
      }
      object.rule = rules.spaceOf(r.version().path());
      if (objects.contains(r.version())) {
        // a second file of one version (a crash between two generations): keep one, delete the other
        problems++;
        evicted.add(object);
        continue;
      }
      object.published.or(r.published());
      object.charged.or(r.charged());
      System.arraycopy(r.crc32c(), 0, object.crc32c, 0, object.crc32c.length);
      object.lastUsedMillis = r.lastUsedMillis();
      object.chargedBytes = DiskCharge.OBJECT_OVERHEAD + object.chargeOf(object.charged);
      BitSet unpublished = (BitSet) object.charged.clone();
      unpublished.andNot(object.published);
      if (!unpublished.isEmpty()) {
        // granted by the previous run, whose grantees may still be writing them
        object.recoveredWrites = leases.create(object, recoveredAtNanos);
        object.recoveredWrites.blocks.or(unpublished);
      }
      blocks += object.published.cardinality();
      objects.add(object);
      space.recovered(object);
      objects.generationUsed(r.generation());
      if (idleExpiry.expired(object.lastUsedMillis, now)) {
        // unread for longer than allowed, the time it was down included
        objects.drop(object);
        evicted.add(object);
        expired++;
      }
    }
    for (MetadataJournal.Leftover leftover : recovery.leftovers()) {
      if (leftover.disk() >= 0 && leftover.disk() < space.diskCount()) {
        space.leftover(leftover.disk(), leftover.bytes());
      }
    }
    for (RuleSpace rule : rules.spaces()) {
      // a quota made smaller since the cache was written
      objects.evictForQuota(space.quotaVictims(rule, null, 0, evicted), rule, evicted);
    }
    for (int disk = 0; disk < space.diskCount(); disk++) {
      objects.reserve(space.disk(disk), null, 0, evicted);
    }
    while (objects.size() > maxObjects && objects.evictOneObject(space.disk(0), evicted)) {
      // a journal from a run with a larger bound
    }
    return new Outcome(blocks, expired, problems + recovery.problems());
  }
}
