package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.ToLongFunction;

/** {@link EvictionOrder} by recency alone: one segment per disk, the least recently used evicted first. */
final class LruOrder implements EvictionOrder {
  @Override
  public void sized(DiskSpace disk) {}

  @Override
  public Segment firstSegment() {
    return Segment.PROBATION;
  }

  @Override
  public boolean segmented() {
    return false;
  }

  @Override
  public void objectsCached(int objects) {}

  @Override
  public void accessed(ObjectVersion version, int block, CachedObject object) {}

  @Override
  public void read(long hitBytes, long bytes, int objects, List<DiskSpace> disks) {}

  @Override
  public boolean adaptive() {
    return false;
  }

  @Override
  public double windowShare() {
    return 0;
  }

  @Override
  public Eviction victims(DiskSpace disk, CachedObject requester, long length, long freedBefore, Collection<CachedObject> evicting,
      ToLongFunction<CachedObject> freeable) {
    long freed = freedBefore;
    List<CachedObject> victims = new ArrayList<>();
    Iterator<CachedObject> candidates = disk.objects();
    while (disk.usedBytes - freed + length > disk.capacityBytes && candidates.hasNext()) {
      CachedObject candidate = candidates.next();
      if (Eviction.evictable(candidate, requester) && !evicting.contains(candidate)) {
        victims.add(candidate);
        freed += freeable.applyAsLong(candidate);
      }
    }
    return disk.usedBytes - freed + length > disk.capacityBytes ? Eviction.NO_ROOM : new Eviction(victims, false);
  }
}
