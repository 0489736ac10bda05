package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * {@link EvictionOrder} as W-TinyLFU ({@code rubix.cache.eviction.policy=tinylfu}): disks segmented
 * into window, probation and protected ({@link DiskSpace}); new objects start in the window; victims
 * chosen by recent read frequency ({@link WindowedVictims} over {@link AccessFrequencies}); the window's
 * share of each disk sized by one {@link HillClimber} for all disks, which hold hash partitions of the
 * same reads.
 */
final class TinyLfuOrder implements EvictionOrder {
  private final HillClimber climber = new HillClimber();
  private final AccessFrequencies frequencies = new AccessFrequencies();
  private final WindowedVictims windowed = new WindowedVictims(frequencies);

  @Override
  public void sized(DiskSpace disk) {
    disk.resize(climber.window());
  }

  @Override
  public Segment firstSegment() {
    return Segment.WINDOW;
  }

  @Override
  public boolean segmented() {
    return true;
  }

  @Override
  public void objectsCached(int objects) {
    frequencies.objectsCached(objects);
  }

  @Override
  public void accessed(ObjectVersion version, int block, CachedObject object) {
    frequencies.record(version, block, object);
  }

  @Override
  public void read(long hitBytes, long bytes, int objects, List<DiskSpace> disks) {
    // a sample of ten reads per cached object, as Caffeine's is ten per entry the cache holds
    if (climber.record(hitBytes, bytes, 10L * Math.max(objects, HillClimber.MIN_SAMPLE_OBJECTS))) {
      for (DiskSpace disk : disks) {
        disk.resize(climber.window());
        disk.demoteProtectedOverflow();
      }
    }
  }

  @Override
  public boolean adaptive() {
    return true;
  }

  @Override
  public double windowShare() {
    return climber.window();
  }

  @Override
  public Eviction victims(DiskSpace disk, CachedObject requester, long length, long freedBefore, Collection<CachedObject> evicting,
      ToLongFunction<CachedObject> freeable) {
    return windowed.victims(disk, requester, length, freedBefore, evicting, freeable);
  }
}
