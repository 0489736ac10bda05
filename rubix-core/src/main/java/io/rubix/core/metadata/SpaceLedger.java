package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.metadata.CacheUsage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What a metadata service charges against each disk's cap, and the LRU order of each disk's objects.
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
  private final FencedWrites fencedWrites = new FencedWrites(this::giveBack);
  private final LongSupplier nanoClock;

  SpaceLedger(List<Path> roots, List<Long> capacities, LongSupplier nanoClock) {
    if (roots.size() != capacities.size()) {
      throw new IllegalArgumentException("one capacity per root: " + roots + " vs " + capacities);
    }
    for (int i = 0; i < roots.size(); i++) {
      disks.add(new DiskSpace(roots.get(i), capacities.get(i)));
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

  /** The disks, {@code preferred} first. */
  List<DiskSpace> disksFrom(DiskSpace preferred) {
    List<DiskSpace> order = new ArrayList<>(disks);
    order.remove(preferred);
    order.add(0, preferred);
    return order;
  }

  /** Charges a recovered object (its {@link CachedObject#chargedBytes}) and puts it last in LRU order. */
  void recovered(CachedObject object) {
    DiskSpace disk = diskOf(object);
    disk.lru.put(object.version, object);
    disk.usedBytes += object.chargedBytes;
  }

  /** Charges for good a file of {@code bytes} recovery could neither recover nor delete. */
  void leftover(int diskIndex, long bytes) {
    DiskSpace disk = disks.get(diskIndex);
    long charge = DiskCharge.ofFile(bytes);
    disk.leftoverBytes += charge;
    disk.usedBytes += charge;
  }

  /** Charges a new object its overhead (room was {@linkplain #victims made} first) and puts it last in LRU order. */
  void created(CachedObject object) {
    DiskSpace disk = diskOf(object);
    object.chargedBytes = DiskCharge.OBJECT_OVERHEAD;
    disk.usedBytes += DiskCharge.OBJECT_OVERHEAD;
    disk.lru.put(object.version, object);
  }

  /** {@code object} was used: last in LRU order. */
  void touch(CachedObject object) {
    diskOf(object).lru.get(object.version);
  }

  /** Charges {@code block} of {@code object} (room was {@linkplain #victims made} first). */
  void charge(CachedObject object, int block) {
    long charge = DiskCharge.ofBlock(object.blockLength(block));
    object.charged.set(block);
    object.chargedBytes += charge;
    diskOf(object).usedBytes += charge;
  }

  /** Gives back the charge of {@code block} of {@code object}: nothing of it is on disk. */
  void uncharge(CachedObject object, int block) {
    if (object.charged.get(block)) {
      object.charged.clear(block);
      long charge = DiskCharge.ofBlock(object.blockLength(block));
      object.chargedBytes -= charge;
      diskOf(object).usedBytes -= charge;
    }
  }

  /**
   * The least recently used objects to evict from {@code disk} so that {@code length} more bytes fit,
   * never {@code requester} nor one being fetched into; null when that is impossible. Space of
   * objects other calls dropped counts as used until their files are truncated; space of the objects
   * in {@code evicted} counts as free, since the caller deletes their files before it answers, except
   * what grantees may still be writing.
   */
  List<CachedObject> victims(DiskSpace disk, CachedObject requester, long length, Collection<CachedObject> evicted) {
    if (length > disk.capacityBytes) {
      return null;
    }
    long freed = 0;
    for (CachedObject victim : evicted) {
      if (diskOf(victim) == disk) {
        freed += victim.releasingBytes;
      }
    }
    List<CachedObject> victims = new ArrayList<>();
    Iterator<CachedObject> candidates = disk.lru.values().iterator();
    while (disk.usedBytes - freed + length > disk.capacityBytes && candidates.hasNext()) {
      CachedObject candidate = candidates.next();
      if (candidate != requester && !candidate.pinned() && candidate.chargedBytes > 0) {
        victims.add(candidate);
        freed += candidate.chargedBytes - recoveredWritesCharge(candidate);
      }
    }
    return disk.usedBytes - freed + length > disk.capacityBytes ? null : victims;
  }

  /**
   * Removes the dropped {@code object} from its disk's objects. Its charge stays on the disk, as
   * releasing, until {@link #released} (its files truncated), except the blocks the grantees of
   * {@code leases} and, after a restart, of the previous run may still be writing: those until they
   * are done ({@link FencedWrites}).
   */
  void forget(CachedObject object, Collection<Lease> leases) {
    DiskSpace disk = diskOf(object);
    disk.lru.remove(object.version);
    disk.releasingBytes += object.chargedBytes;
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
  CacheUsage usage(long evictions) {
    List<CacheUsage.Disk> result = new ArrayList<>();
    for (DiskSpace disk : disks) {
      long reserved = 0;
      for (CachedObject object : disk.lru.values()) {
        for (int block : object.inFlight.keySet()) {
          reserved += DiskCharge.ofBlock(object.blockLength(block));
        }
      }
      result.add(new CacheUsage.Disk(disk.root.toString(), disk.capacityBytes, disk.usedBytes - disk.releasingBytes - reserved, reserved,
          disk.lru.size()));
    }
    return new CacheUsage(result, evictions);
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
  }
}
