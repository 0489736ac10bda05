package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.DataFileLayout;
import java.util.Arrays;
import java.util.List;

/**
 * What an acquire decides: whether an object starts being cached (within the most objects, its
 * rule and the room its disk has), and which of the blocks asked for are granted, each charged
 * before any byte of it is written. Runs under the owning service's lock, like {@link ObjectTable};
 * the service creates the files of a started object and journals the charges after unlocking.
 */
final class Grants {
  private final ObjectTable objects;
  private final SpaceLedger space;
  private final RuleQuotas rules;
  private final DataFileLayout layout;
  private final IdleExpiry idleExpiry;
  private final int blockSize;
  private final long maxObjects;

  Grants(ObjectTable objects, SpaceLedger space, RuleQuotas rules, DataFileLayout layout, IdleExpiry idleExpiry, int blockSize,
      long maxObjects) {
    this.objects = objects;
    this.space = space;
    this.rules = rules;
    this.layout = layout;
    this.idleExpiry = idleExpiry;
    this.blockSize = blockSize;
    this.maxObjects = maxObjects;
  }

  /**
   * Starts caching {@code version}, read from {@code firstBlock}: makes room for one more object
   * (within {@code maxObjects}) and its overhead, evicting into {@code evicted}. Its journal and data
   * file are created by the service after the lock is released; until then the object is
   * {@code creating}. Null when its rule excludes it, there is no room or the eviction policy refuses it.
   */
  CachedObject start(ObjectVersion version, int firstBlock, List<CachedObject> evicted) {
    if (!rules.admits(version.path())) {
      return null;
    }
    int diskIndex = layout.diskOf(version);
    DiskSpace disk = space.disk(diskIndex);
    long generation = objects.nextGeneration();
    CachedObject object = new CachedObject(version, diskIndex, layout.dataFile(version, diskIndex, generation), blockSize);
    object.rule = rules.spaceOf(version.path());
    space.accessed(version, firstBlock, object);
    space.creating(object);
    if (objects.size() >= maxObjects && !objects.evictOneObject(disk, evicted)) {
      return null;
    }
    if (!objects.reserve(disk, object, DiskCharge.OBJECT_OVERHEAD, evicted)) {
      return null;
    }
    objects.generationUsed(generation);
    object.lastUsedMillis = idleExpiry.nowMillis();
    object.creating = true;
    objects.add(object);
    space.created(object);
    return object;
  }

  /**
   * Grants {@code lease} the blocks of {@code [firstBlock, endBlock)} of {@code object} that are neither
   * published nor being fetched and that are charged already or fit (evicting into {@code evicted});
   * the blocks it charged now, which the service journals before it answers.
   */
  int[] grant(CachedObject object, Lease lease, int firstBlock, int endBlock, List<CachedObject> evicted) {
    DiskSpace disk = space.diskOf(object);
    int[] newlyCharged = new int[endBlock - firstBlock];
    int charges = 0;
    for (int block = firstBlock; block < endBlock; block++) {
      if (object.published.get(block) || object.inFlight.containsKey(block)) {
        continue;
      }
      if (!object.charged.get(block)) {
        long charge = DiskCharge.ofBlock(object.blockLength(block));
        if (!objects.reserve(disk, object, charge, evicted)) {
          continue;
        }
        space.charge(object, block);
        newlyCharged[charges++] = block;
      }
      object.inFlight.put(block, lease.id);
      lease.blocks.set(block);
    }
    return Arrays.copyOf(newlyCharged, charges);
  }
}
