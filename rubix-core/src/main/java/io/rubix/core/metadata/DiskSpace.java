package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.stream.Stream;

/**
 * Space accounting and eviction order of the objects on one cache disk: under LRU all of them are in
 * {@link #lru}; under TinyLFU new ones start in {@link #window} and move to {@link #lru} once the
 * window holds more than {@link #windowCapacity}. Guarded by the owning service's lock.
 */
final class DiskSpace {
  final Path root;
  final long capacityBytes;
  /** Object versions past the window (all of them under LRU), least recently used first. */
  final LinkedHashMap<ObjectVersion, CachedObject> lru = new LinkedHashMap<>(16, 0.75f, true);
  /** TinyLFU only: the newest object versions, least recently used first. */
  final LinkedHashMap<ObjectVersion, CachedObject> window = new LinkedHashMap<>(16, 0.75f, true);
  /** Most bytes the window's objects are charged before the oldest move on (0 under LRU: no window). */
  final long windowCapacity;
  /** What the objects in {@link #window} are charged. */
  long windowBytes;
  /** Charged bytes, including {@link #leftoverBytes} and {@link #releasingBytes}. */
  long usedBytes;
  /** Bytes of files recovery could neither recover nor delete: charged, never evicted. */
  long leftoverBytes;
  /**
   * Bytes of dropped objects whose files are not truncated yet: still charged (in {@link #usedBytes}),
   * so no grant is made in space whose old bytes are still on disk, but no longer any object's.
   */
  long releasingBytes;

  DiskSpace(Path root, long capacityBytes, long windowCapacity) {
    this.root = root;
    this.capacityBytes = capacityBytes;
    this.windowCapacity = windowCapacity;
  }

  /** Every object of this disk, in the order they are evicted when no policy decides: past the window first, each part least recently used first. */
  Iterator<CachedObject> objects() {
    return Stream.concat(lru.values().stream(), window.values().stream()).iterator();
  }

  int objectCount() {
    return lru.size() + window.size();
  }

  /** {@code object} was used: last in its part's LRU order. */
  void touch(CachedObject object) {
    (object.inWindow ? window : lru).get(object.version);
  }

  /** Moves {@code object} from the window to the most recently used end of {@link #lru}. */
  void leaveWindow(CachedObject object) {
    window.remove(object.version);
    windowBytes -= object.chargedBytes;
    object.inWindow = false;
    lru.put(object.version, object);
  }

  void remove(CachedObject object) {
    if (object.inWindow) {
      window.remove(object.version);
      windowBytes -= object.chargedBytes;
      object.inWindow = false;
    } else {
      lru.remove(object.version);
    }
  }
}
