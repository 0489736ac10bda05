package io.rubix.core.metadata.eviction;

import io.rubix.spi.ObjectVersion;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The eviction order of the objects on one cache disk, in segments, each least recently used first.
 *
 * <p>Under LRU all objects are in {@link Segment#PROBATION}. Under TinyLFU (W-TinyLFU as Caffeine
 * builds it) a new object enters the {@linkplain Segment#WINDOW window}; once the window holds more
 * than {@link #windowCapacity} its oldest objects move on to probation, where they are compared with
 * the objects they would evict ({@link WindowedVictims}). An object in probation that is read again (a
 * read starting at a block it holds) moves to {@linkplain Segment#PROTECTED protected}; once protected
 * holds more than {@link #protectedCapacity} its least recently used objects go back to probation.
 *
 * <p>Counts what each segment's objects are charged; what the disk as a whole holds (files being
 * released, leftovers) is the ledger's. Not thread-safe: guarded by the owning service's lock.
 *
 * @param <R> the objects ordered
 */
public final class Segments<R extends Resident> {
  /** TinyLFU: the share of the space past the window that protected objects may hold, as in Caffeine. */
  public static final double PROTECTED_SHARE = 0.8;

  private final long capacityBytes;
  private final Map<Segment, LinkedHashMap<ObjectVersion, R>> segments = new EnumMap<>(Segment.class);
  private final long[] segmentBytes = new long[Segment.values().length];
  /** Most bytes the window's objects are charged before the oldest move on (0 under LRU: no window). */
  private long windowCapacity;
  /** Most bytes protected objects are charged before the least recently used go back to probation. */
  private long protectedCapacity;

  /** The order of a disk of {@code capacityBytes}, with no window and no protected segment (LRU) until {@link #resize}d. */
  public Segments(long capacityBytes) {
    this.capacityBytes = capacityBytes;
    for (Segment segment : Segment.values()) {
      segments.put(segment, new LinkedHashMap<>(16, 0.75f, true));
    }
  }

  /** Gives the window {@code windowShare} (0 to 1) of the cap, and protected {@link #PROTECTED_SHARE} of the rest. */
  public void resize(double windowShare) {
    windowCapacity = (long) (capacityBytes * windowShare);
    protectedCapacity = (long) ((capacityBytes - windowCapacity) * PROTECTED_SHARE);
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  public long windowCapacity() {
    return windowCapacity;
  }

  public long protectedCapacity() {
    return protectedCapacity;
  }

  /** What the objects in {@code segment} are charged. */
  public long bytes(Segment segment) {
    return segmentBytes[segment.ordinal()];
  }

  /** The objects of {@code segment}, least recently used first. */
  public Iterator<R> objects(Segment segment) {
    return segments.get(segment).values().iterator();
  }

  /** Every object, in the order they are evicted when no policy decides: probation, protected, window, each least recently used first. */
  public Iterator<R> objects() {
    return Stream.of(Segment.PROBATION, Segment.PROTECTED, Segment.WINDOW).flatMap(s -> segments.get(s).values().stream()).iterator();
  }

  /** The objects past the window: probation's, then protected's, each least recently used first. */
  public Iterator<R> pastWindow() {
    return Stream.of(Segment.PROBATION, Segment.PROTECTED).flatMap(s -> segments.get(s).values().stream()).iterator();
  }

  public int objectCount() {
    int objects = 0;
    for (LinkedHashMap<ObjectVersion, R> segment : segments.values()) {
      objects += segment.size();
    }
    return objects;
  }

  /** Adds {@code object} (charged as it is) as the most recently used of {@code segment}. */
  public void add(R object, Segment segment) {
    object.segment(segment);
    segments.get(segment).put(object.version(), object);
    segmentBytes[segment.ordinal()] += object.chargedBytes();
  }

  public void remove(R object) {
    if (segments.get(object.segment()).remove(object.version()) != null) {
      segmentBytes[object.segment().ordinal()] -= object.chargedBytes();
    }
  }

  /** Moves {@code object} to the most recently used end of {@code segment}. */
  public void move(R object, Segment segment) {
    remove(object);
    add(object, segment);
  }

  /** {@code object} is charged {@code bytes} more (or less, when negative). */
  public void charged(R object, long bytes) {
    if (segments.get(object.segment()).containsKey(object.version())) {
      segmentBytes[object.segment().ordinal()] += bytes;
    }
  }

  /**
   * {@code object} was read: last in its segment's LRU order; under TinyLFU ({@code segmented}), a
   * probation object read again ({@code reread}) moves to protected.
   */
  public void touch(R object, boolean reread, boolean segmented) {
    if (segmented && reread && object.segment() == Segment.PROBATION) {
      move(object, Segment.PROTECTED);
      demoteProtectedOverflow();
    } else {
      segments.get(object.segment()).get(object.version());
    }
  }

  /** Moves the least recently used protected objects back to probation (most recently used end) until protected fits its capacity. */
  public void demoteProtectedOverflow() {
    Iterator<R> oldest = objects(Segment.PROTECTED);
    while (bytes(Segment.PROTECTED) > protectedCapacity && oldest.hasNext()) {
      R demoted = oldest.next();
      oldest.remove();
      segmentBytes[Segment.PROTECTED.ordinal()] -= demoted.chargedBytes();
      add(demoted, Segment.PROBATION);
    }
  }
}
