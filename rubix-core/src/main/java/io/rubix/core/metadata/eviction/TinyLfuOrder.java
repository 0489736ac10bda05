package io.rubix.core.metadata.eviction;

import io.rubix.spi.ObjectVersion;
import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * {@link EvictionOrder} as W-TinyLFU ({@code rubix.cache.eviction.policy=tinylfu}): disks segmented
 * into window, probation and protected ({@link Segments}); new objects start in the window; victims
 * chosen by recent read frequency ({@link WindowedVictims} over {@link AccessFrequencies}); the window's
 * share of each disk sized by one {@link HillClimber} for all disks, which hold hash partitions of the
 * same reads.
 */
final class TinyLfuOrder<R extends Resident> implements EvictionOrder<R> {
  private final HillClimber climber = new HillClimber();
  private final AccessFrequencies frequencies = new AccessFrequencies();
  private final WindowedVictims<R> windowed = new WindowedVictims<>(frequencies);

  @Override
  public void sized(Segments<R> disk) {
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
  public void accessed(ObjectVersion version, int block, R object) {
    frequencies.record(version, block, object);
  }

  @Override
  public void read(long hitBytes, long bytes, int objects, List<Segments<R>> disks) {
    // a sample of ten reads per cached object, as Caffeine's is ten per entry the cache holds
    if (climber.record(hitBytes, bytes, 10L * Math.max(objects, HillClimber.MIN_SAMPLE_OBJECTS))) {
      for (Segments<R> disk : disks) {
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
  public Eviction<R> victims(Segments<R> disk, long usedBytes, R requester, long length, Collection<R> evicting,
      ToLongFunction<R> freeable) {
    return windowed.victims(disk, usedBytes, requester, length, evicting, freeable);
  }
}
