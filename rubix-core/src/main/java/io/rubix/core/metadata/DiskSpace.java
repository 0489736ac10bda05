package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Space accounting and eviction order of the objects on one cache disk.
 *
 * <p>Under LRU all objects are in {@link Segment#PROBATION}, least recently used first. Under TinyLFU
 * (W-TinyLFU as Caffeine builds it) a new object enters the {@linkplain Segment#WINDOW window}; once
 * the window holds more than {@link #windowCapacity} its oldest objects move on to probation, where
 * {@link SpaceLedger} compares them with the objects they would evict. An object in probation that is
 * read again (a read starting at a block it holds) moves to {@linkplain Segment#PROTECTED protected};
 * once protected holds more than {@link #protectedCapacity} its least recently used objects go back
 * to probation. Each segment is kept least recently used first. Guarded by the owning service's lock.
 */
final class DiskSpace {
  /** TinyLFU: the share of the space past the window that protected objects may hold, as in Caffeine. */
  static final double PROTECTED_SHARE = 0.8;

  final Path root;
  final long capacityBytes;
  private final Map<Segment, LinkedHashMap<ObjectVersion, CachedObject>> segments = new EnumMap<>(Segment.class);
  private final long[] segmentBytes = new long[Segment.values().length];
  /** Most bytes the window's objects are charged before the oldest move on (0 under LRU: no window). */
  private long windowCapacity;
  /** Most bytes protected objects are charged before the least recently used go back to probation. */
  private long protectedCapacity;
  /** Charged bytes, including {@link #leftoverBytes} and {@link #releasingBytes}. */
  long usedBytes;
  /** Bytes of files recovery could neither recover nor delete: charged, never evicted. */
  long leftoverBytes;
  /**
   * Bytes of dropped objects whose files are not truncated yet: still charged (in {@link #usedBytes}),
   * so no grant is made in space whose old bytes are still on disk, but no longer any object's.
   */
  long releasingBytes;

  /** A disk with no window and no protected segment (LRU) until {@link #resize}d. */
  DiskSpace(Path root, long capacityBytes) {
    this.root = root;
    this.capacityBytes = capacityBytes;
    for (Segment segment : Segment.values()) {
      segments.put(segment, new LinkedHashMap<>(16, 0.75f, true));
    }
  }

  /** Gives the window {@code windowShare} (0 to 1) of the cap, and protected {@link #PROTECTED_SHARE} of the rest. */
  void resize(double windowShare) {
    windowCapacity = (long) (capacityBytes * windowShare);
    protectedCapacity = (long) ((capacityBytes - windowCapacity) * PROTECTED_SHARE);
  }

  long windowCapacity() {
    return windowCapacity;
  }

  long protectedCapacity() {
    return protectedCapacity;
  }

  /** What the objects in {@code segment} are charged. */
  long bytes(Segment segment) {
    return segmentBytes[segment.ordinal()];
  }

  /** The objects of {@code segment}, least recently used first. */
  Iterator<CachedObject> objects(Segment segment) {
    return segments.get(segment).values().iterator();
  }

  /** Every object of this disk, in the order they are evicted when no policy decides: probation, protected, window, each least recently used first. */
  Iterator<CachedObject> objects() {
    return Stream.of(Segment.PROBATION, Segment.PROTECTED, Segment.WINDOW).flatMap(s -> segments.get(s).values().stream()).iterator();
  }

  /** The objects past the window: probation's, then protected's, each least recently used first. */
  Iterator<CachedObject> pastWindow() {
    return Stream.of(Segment.PROBATION, Segment.PROTECTED).flatMap(s -> segments.get(s).values().stream()).iterator();
  }

  int objectCount() {
    int objects = 0;
    for (LinkedHashMap<ObjectVersion, CachedObject> segment : segments.values()) {
      objects += segment.size();
    }
    return objects;
  }

  /** Adds {@code object} (charged as it is) as the most recently used of {@code segment}. */
  void add(CachedObject object, Segment segment) {
    object.segment = segment;
    segments.get(segment).put(object.version, object);
    segmentBytes[segment.ordinal()] += object.chargedBytes;
  }

  void remove(CachedObject object) {
    if (segments.get(object.segment).remove(object.version) != null) {
      segmentBytes[object.segment.ordinal()] -= object.chargedBytes;
    }
  }

  /** Moves {@code object} to the most recently used end of {@code segment}. */
  void move(CachedObject object, Segment segment) {
    remove(object);
    add(object, segment);
  }

  /** {@code object}, on this disk, is charged {@code bytes} more (or less, when negative). */
  void charged(CachedObject object, long bytes) {
    if (segments.get(object.segment).containsKey(object.version)) {
      segmentBytes[object.segment.ordinal()] += bytes;
    }
  }

  /**
   * {@code object} was read: last in its segment's LRU order; under TinyLFU ({@code segmented}), a
   * probation object read again ({@code reread}) moves to protected.
   */
  void touch(CachedObject object, boolean reread, boolean segmented) {
    if (segmented && reread && object.segment == Segment.PROBATION) {
      move(object, Segment.PROTECTED);
      demoteProtectedOverflow();
    } else {
      segments.get(object.segment).get(object.version);
    }
  }

  /** Moves the least recently used protected objects back to probation (most recently used end) until protected fits its capacity. */
  void demoteProtectedOverflow() {
    Iterator<CachedObject> oldest = objects(Segment.PROTECTED);
    while (bytes(Segment.PROTECTED) > protectedCapacity && oldest.hasNext()) {
      CachedObject demoted = oldest.next();
      oldest.remove();
      segmentBytes[Segment.PROTECTED.ordinal()] -= demoted.chargedBytes;
      add(demoted, Segment.PROBATION);
    }
  }
}
