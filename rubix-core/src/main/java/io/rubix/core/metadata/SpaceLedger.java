package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.metadata.eviction.Eviction;
import io.rubix.core.metadata.eviction.EvictionOrder;
import io.rubix.core.metadata.eviction.Segment;
import io.rubix.core.metadata.eviction.Segments;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.CacheUsage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What a metadata service charges against each disk's cap and each rule's quota. Which objects a
 * disk evicts is its {@link EvictionOrder}'s choice (LRU or W-TinyLFU, package {@code eviction}); the
 * ledger counts what they free.
 *
 * <p>Space is charged when a block is granted, before any byte is written, and given back only once
 * its bytes are gone: a dropped object's charge is "releasing" until its files are truncated
 * ({@link #released}), and the part its grantees may still be writing until they are done
 * ({@link FencedWrites}). So the bytes the cache's files hold never exceed the sum of the charges.
 *
 * <p>Not thread-safe: guarded by the owning service's lock. Does no I/O. That lock is the
 * service's, which this class cannot name, so its fields carry no {@code @GuardedBy}: Error Prone
 * checks the lock where the service reaches its parts, through its {@code @GuardedBy("lock")}
 * fields.
 */
final class SpaceLedger {
  private final List<DiskSpace> disks = new ArrayList<>();
  /** Each disk's eviction order, in the disks' order: what the policy resizes. */
  private final List<Segments<CachedObject>> segments = new ArrayList<>();
  private final FencedWrites fencedWrites = new FencedWrites(this::giveBack);
  private final LongSupplier nanoClock;
  private final EvictionOrder<CachedObject> order;

  /** A ledger evicting by {@code policy}. */
  SpaceLedger(List<Path> roots, List<Long> capacities, LongSupplier nanoClock, EvictionPolicy policy) {
    if (roots.size() != capacities.size()) {
      throw new IllegalArgumentException("one capacity per root: " + roots + " vs " + capacities);
    }
    this.order = EvictionOrder.of(requireNonNull(policy, "policy is null"));
    for (int i = 0; i < roots.size(); i++) {
      DiskSpace disk = new DiskSpace(roots.get(i), capacities.get(i));
      order.sized(disk.segments);
      disks.add(disk);
      segments.add(disk.segments);
    }
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
  }

  DiskSpace disk(int index) {
    return disks.get(index);
  }

  DiskSpace diskOf(CachedObject object) {
    return disks.get(object.disk);
  }

  int diskCount() {
    return disks.size();
  }

  /** Objects on all disks. */
  private int objectCount() {
    int objects = 0;
    for (DiskSpace disk : disks) {
      objects += disk.objectCount();
    }
    return objects;
  }

  /** The disks, {@code preferred} first. */
  List<DiskSpace> disksFrom(DiskSpace preferred) {
    List<DiskSpace> order = new ArrayList<>(disks);
    order.remove(preferred);
    order.add(0, preferred);
    return order;
  }

  /** Charges a recovered object (its {@link CachedObject#chargedBytes}) and puts it last in LRU order, in probation. */
  void recovered(CachedObject object) {
    DiskSpace disk = diskOf(object);
    disk.add(object, Segment.PROBATION);
    disk.usedBytes += object.chargedBytes;
    if (object.rule != null) {
      object.rule.lru.put(object.version, object);
      object.rule.usedBytes += object.chargedBytes;
    }
    order.objectsCached(objectCount());
  }

  /** Charges for good a file of {@code bytes} recovery could neither recover nor delete. */
  void leftover(int diskIndex, long bytes) {
    DiskSpace disk = disks.get(diskIndex);
    long charge = DiskCharge.ofFile(bytes);
    disk.leftoverBytes += charge;
    disk.usedBytes += charge;
  }

  /**
   * {@code object} is about to be created: under TinyLFU it will start in the window, which
   * {@link #victims} must know (and may send it on to probation when the window has no room for it).
   */
  void creating(CachedObject object) {
    object.segment = order.firstSegment();
  }

  /** Charges a new object its overhead (room was {@linkplain #victims made} first) and puts it last in LRU order of its segment. */
  void created(CachedObject object) {
    DiskSpace disk = diskOf(object);
    object.chargedBytes = DiskCharge.OBJECT_OVERHEAD;
    disk.usedBytes += DiskCharge.OBJECT_OVERHEAD;
    if (object.rule != null) {
      object.rule.lru.put(object.version, object);
      object.rule.usedBytes += DiskCharge.OBJECT_OVERHEAD;
    }
    order.objectsCached(objectCount() + 1);
    disk.add(object, object.segment);
  }

  /** {@code object} was read from {@code block}: last in LRU order; under TinyLFU, to protected if it is in probation and holds that block. */
  void touch(CachedObject object, int block) {
    diskOf(object).segments.touch(object, object.published.get(block), order.segmented());
    if (object.rule != null) {
      object.rule.lru.get(object.version);
    }
  }

  /**
   * A reader reads {@code bytes}, {@code hitBytes} of them from the cache: under TinyLFU a sample for
   * the {@link EvictionOrder}, which at the end of each sample may resize every disk's window.
   */
  void read(long hitBytes, long bytes) {
    order.read(hitBytes, bytes, objectCount(), segments);
  }

  /** Whether the policy adapts to the hit ratio {@linkplain #read reads} get (TinyLFU). */
  boolean adaptive() {
    return order.adaptive();
  }

  /** Under TinyLFU, the share of each disk's cap its window now holds; 0 under LRU. */
  double windowShare() {
    return order.windowShare();
  }

  /** A read of {@code version} starting at {@code block} (its cached {@code object}, or null): counted under TinyLFU. */
  void accessed(ObjectVersion version, int block, CachedObject object) {
    order.accessed(version, block, object);
  }

  /** Charges {@code block} of {@code object} (room was {@linkplain #victims made} first). */
  void charge(CachedObject object, int block) {
    long charge = DiskCharge.ofBlock(object.blockLength(block));
    object.charged.set(block);
    object.chargedBytes += charge;
    DiskSpace disk = diskOf(object);
    disk.usedBytes += charge;
    disk.charged(object, charge);
    if (object.rule != null) {
      object.rule.usedBytes += charge;
    }
  }

  /** Gives back the charge of {@code block} of {@code object}: nothing of it is on disk. */
  void uncharge(CachedObject object, int block) {
    if (object.charged.get(block)) {
      object.charged.clear(block);
      long charge = DiskCharge.ofBlock(object.blockLength(block));
      object.chargedBytes -= charge;
      DiskSpace disk = diskOf(object);
      disk.usedBytes -= charge;
      disk.charged(object, -charge);
      if (object.rule != null) {
        object.rule.usedBytes -= charge;
      }
    }
  }

  /**
   * The objects to evict from {@code disk} so that {@code length} more bytes fit, never
   * {@code requester} (null when the bytes are a new object's) nor one being fetched into. Space of
   * objects other calls dropped counts as used until their files are truncated; space of the objects
   * in {@code evicted} counts as free, since the caller deletes their files before it answers, except
   * what grantees may still be writing; so does the space of {@code evicting}, objects the caller will
   * evict with these if they fit (for a rule's quota), which are never picked again.
   */
  Eviction<CachedObject> victims(DiskSpace disk, CachedObject requester, long length, Collection<CachedObject> evicted,
      Collection<CachedObject> evicting) {
    if (length > disk.capacityBytes) {
      return Eviction.noRoom();
    }
    long freed = 0;
    for (CachedObject victim : evicted) {
      if (diskOf(victim) == disk) {
        freed += victim.releasingBytes;
      }
    }
    for (CachedObject victim : evicting) {
      if (diskOf(victim) == disk) {
        freed += freeableCharge(victim);
      }
    }
    return order.victims(disk.segments, disk.usedBytes - freed, requester, length, evicting, this::freeableCharge);
  }

  /**
   * The objects of {@code requester}'s rule to evict, least recently used first, so that
   * {@code length} more bytes of it fit the rule's quota; none when its rule has no quota. Counted
   * like {@link #victims}: space of the objects in {@code evicted} as free except what grantees may
   * still be writing, space of objects other calls dropped as used until their files are truncated.
   */
  Eviction<CachedObject> quotaVictims(CachedObject requester, long length, Collection<CachedObject> evicted) {
    return quotaVictims(requester.rule, requester, length, evicted);
  }

  /** {@link #quotaVictims(CachedObject, long, Collection)} for {@code rule} and a {@code requester} that may be null (a recovery within the quota). */
  Eviction<CachedObject> quotaVictims(RuleSpace rule, CachedObject requester, long length, Collection<CachedObject> evicted) {
    if (rule == null) {
      return Eviction.none();
    }
    if (length > rule.quotaBytes) {
      return Eviction.noRoom();
    }
    long freed = 0;
    for (CachedObject victim : evicted) {
      if (victim.rule == rule) {
        freed += victim.releasingBytes;
      }
    }
    List<CachedObject> victims = new ArrayList<>();
    Iterator<CachedObject> candidates = rule.lru.values().iterator();
    while (rule.usedBytes - freed + length > rule.quotaBytes && candidates.hasNext()) {
      CachedObject candidate = candidates.next();
      if (Eviction.evictable(candidate, requester)) {
        victims.add(candidate);
        freed += freeableCharge(candidate);
      }
    }
    return rule.usedBytes - freed + length > rule.quotaBytes ? Eviction.noRoom() : new Eviction<>(victims, false);
  }

  /**
   * Removes the dropped {@code object} from its disk's objects. Its charge stays on the disk, as
   * releasing, until {@link #released} (its files truncated), except the blocks the grantees of
   * {@code leases} and, after a restart, of the previous run may still be writing: those until they
   * are done ({@link FencedWrites}).
   */
  void forget(CachedObject object, Collection<Lease> leases) {
    DiskSpace disk = diskOf(object);
    disk.remove(object);
    disk.releasingBytes += object.chargedBytes;
    if (object.rule != null) {
      object.rule.lru.remove(object.version);
      object.rule.releasingBytes += object.chargedBytes;
    }
    object.releasingBytes += object.chargedBytes;
    object.chargedBytes = 0;
    BitSet held = new BitSet();
    if (recoveredWritesCharge(object) > 0) {
      object.releasingBytes -= fencedWrites.fence(object.recoveredWrites, held);
      held.or(object.recoveredWrites.blocks);
    }
    object.recoveredWrites = null;
    for (Lease lease : leases) {
      object.releasingBytes -= fencedWrites.fence(lease, held);
      held.or(lease.blocks);
    }
  }

  /** Gives back the charge of a dropped object once its files are gone, except what is fenced; files that could not be deleted stay charged for good. */
  void released(CachedObject object, boolean gone) {
    object.filesReleased = true;
    object.filesGone = gone;
    long bytes = object.releasingBytes;
    object.releasingBytes = 0;
    giveBack(object, bytes);
  }

  /** The grantee of the dropped object's lease {@code leaseId} is done with {@code blocks}. */
  void fencedDone(long leaseId, int[] blocks) {
    fencedWrites.end(leaseId, blocks);
  }

  /** Gives back what is fenced for leases whose deadline passed. */
  void expireFences() {
    fencedWrites.expire(nanoClock.getAsLong());
  }

  /** What evicting {@code object} frees now: its charge but what grantees of the previous run may still be writing. */
  private long freeableCharge(CachedObject object) {
    return object.chargedBytes - recoveredWritesCharge(object);
  }

  /** The charge of {@code object}'s blocks that grantees of the previous run may still be writing (none once a lease timeout passed). */
  long recoveredWritesCharge(CachedObject object) {
    Lease writes = object.recoveredWrites;
    if (writes == null) {
      return 0;
    }
    if (nanoClock.getAsLong() - writes.deadlineNanos >= 0) {
      object.recoveredWrites = null;
      return 0;
    }
    BitSet charged = (BitSet) writes.blocks.clone();
    charged.and(object.charged);
    return object.chargeOf(charged);
  }

  /**
   * Per disk: the cap, bytes used by cached objects and bytes reserved for blocks in flight (used +
   * reserved is what the cap bounds); bytes of dropped objects still being released are nobody's and
   * not reported, though no grant is made in them.
   */
  CacheUsage usage(long evictions, long admissionRejections) {
    List<CacheUsage.Disk> result = new ArrayList<>();
    for (DiskSpace disk : disks) {
      long reserved = 0;
      for (Iterator<CachedObject> objects = disk.objects(); objects.hasNext(); ) {
        CachedObject object = objects.next();
        for (int block : object.inFlight.keySet()) {
          reserved += DiskCharge.ofBlock(object.blockLength(block));
        }
      }
      result.add(new CacheUsage.Disk(disk.root.toString(), disk.capacityBytes, disk.usedBytes - disk.releasingBytes - reserved, reserved,
          disk.objectCount()));
    }
    return new CacheUsage(result, evictions, admissionRejections);
  }

  /** Gives back {@code bytes} of a dropped object's charge: now if its files are truncated, else when they are. */
  private void giveBack(CachedObject object, long bytes) {
    if (!object.filesReleased) {
      object.releasingBytes += bytes;
      return;
    }
    DiskSpace disk = diskOf(object);
    disk.releasingBytes -= bytes;
    if (object.filesGone) {
      disk.usedBytes -= bytes;
    } else {
      disk.leftoverBytes += bytes;
    }
    if (object.rule != null) {
      // like the disk's: bytes of files that could not be deleted stay charged
      object.rule.releasingBytes -= bytes;
      if (object.filesGone) {
        object.rule.usedBytes -= bytes;
      }
    }
  }
}
