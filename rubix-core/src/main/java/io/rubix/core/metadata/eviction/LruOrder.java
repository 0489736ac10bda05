package io.rubix.core.metadata.eviction;

import io.rubix.spi.ObjectVersion;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.ToLongFunction;

/** {@link EvictionOrder} by recency alone: one segment per disk, the least recently used evicted first. */
final class LruOrder<R extends Resident> implements EvictionOrder<R> {
  @Override
  public void sized(Segments<R> disk) {}

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
  public void accessed(ObjectVersion version, int block, R object) {}

  @Override
  public void read(long hitBytes, long bytes, int objects, List<Segments<R>> disks) {}

  @Override
  public boolean adaptive() {
    return false;
  }

  @Override
  public double windowShare() {
    return 0;
  }

  @Override
  public Eviction<R> victims(Segments<R> disk, long usedBytes, R requester, long length, Collection<R> evicting,
      ToLongFunction<R> freeable) {
    long freed = 0;
    List<R> victims = new ArrayList<>();
    Iterator<R> candidates = disk.objects();
    while (usedBytes - freed + length > disk.capacityBytes() && candidates.hasNext()) {
      R candidate = candidates.next();
      if (Eviction.evictable(candidate, requester) && !evicting.contains(candidate)) {
        victims.add(candidate);
        freed += freeable.applyAsLong(candidate);
      }
    }
    return usedBytes - freed + length > disk.capacityBytes() ? Eviction.noRoom() : new Eviction<>(victims, false);
  }
}
