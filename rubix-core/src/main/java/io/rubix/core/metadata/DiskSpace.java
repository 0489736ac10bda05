package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import java.nio.file.Path;
import java.util.LinkedHashMap;

/** Space accounting and LRU order of the objects on one cache disk. Guarded by the owning service's lock. */
final class DiskSpace {
  final Path root;
  final long capacityBytes;
  /** Object versions on this disk, least recently used first. */
  final LinkedHashMap<ObjectVersion, CachedObject> lru = new LinkedHashMap<>(16, 0.75f, true);
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
  }
}
