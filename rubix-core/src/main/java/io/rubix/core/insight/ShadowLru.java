package io.rubix.core.insight;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An LRU cache of block keys and their lengths only, no data, holding at most {@code capacityBytes}
 * and {@code maxKeys} keys: it answers whether a block would have been cached. Not thread-safe.
 */
final class ShadowLru {
  private final long capacityBytes;
  private final int maxKeys;
  private final LinkedHashMap<Long, Integer> keys = new LinkedHashMap<>(16, 0.75f, true);
  private long usedBytes;

  ShadowLru(long capacityBytes, int maxKeys) {
    this.capacityBytes = capacityBytes;
    this.maxKeys = maxKeys;
  }

  /** Records an access to {@code key} of {@code length} bytes; true when it was cached (a hit). */
  boolean access(long key, int length) {
    if (keys.get(key) != null) {
      return true;
    }
    if (length > capacityBytes) {
      return false;
    }
    keys.put(key, length);
    usedBytes += length;
    Iterator<Map.Entry<Long, Integer>> eldest = keys.entrySet().iterator();
    while (usedBytes > capacityBytes || keys.size() > maxKeys) {
      usedBytes -= eldest.next().getValue();
      eldest.remove();
    }
    return false;
  }

  int size() {
    return keys.size();
  }
}
