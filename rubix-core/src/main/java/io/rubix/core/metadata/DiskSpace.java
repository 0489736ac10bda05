package io.rubix.core.metadata;

import io.rubix.core.metadata.eviction.Segment;
import io.rubix.core.metadata.eviction.Segments;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * The space of one cache disk: its cap, what is charged against it, and its objects in eviction order
 * ({@link Segments}, which the {@link io.rubix.core.metadata.eviction.EvictionOrder} reads and sizes).
 * Guarded by the owning service's lock.
 */
final class DiskSpace {
  final Path root;
  final long capacityBytes;
  /** Its objects, in the order the eviction policy keeps them. */
  final Segments<CachedObject> segments;
  /** Charged bytes, including {@link #leftoverBytes} and {@link #releasingBytes}. */
  long usedBytes;
  /** Bytes of files recovery could neither recover nor delete: charged, never evicted. */
  long leftoverBytes;
  /**
   * Bytes of dropped objects whose files are not truncated yet: still charged (in {@link #usedBytes}),
   * so no grant is made in space whose old bytes are still on disk, but no longer any object's.
   */
  long releasingBytes;

  DiskSpace(Path root, long capacityBytes) {
    this.root = root;
    this.capacityBytes = capacityBytes;
    this.segments = new Segments<>(capacityBytes);
  }

  /** Every object of this disk ({@link Segments#objects()}). */
  Iterator<CachedObject> objects() {
    return segments.objects();
  }

  int objectCount() {
    return segments.objectCount();
  }

  /** Adds {@code object} (charged as it is) as the most recently used of {@code segment}. */
  void add(CachedObject object, Segment segment) {
    segments.add(object, segment);
  }

  void remove(CachedObject object) {
    segments.remove(object);
  }

  /** {@code object}, on this disk, is charged {@code bytes} more (or less, when negative). */
  void charged(CachedObject object, long bytes) {
    segments.charged(object, bytes);
  }
}
