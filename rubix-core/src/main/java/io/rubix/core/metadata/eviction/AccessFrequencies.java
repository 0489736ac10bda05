package io.rubix.core.metadata.eviction;

import io.rubix.spi.ObjectVersion;

/**
 * TinyLFU's memory of how often object versions were read recently, for deciding whether a newcomer
 * may evict a resident object.
 *
 * <p>What is counted is reads, not objects: each status or acquire call counts once for its object
 * version and first block (the block the reader is at). A one-pass scan so counts about once per
 * block it reads however large the object is, while data read again and again counts once per read.
 * An object's frequency is that of the first block its readers start at most often
 * ({@link Resident#hotBlock}), re-estimated whenever asked, so it fades as the sketch ages.
 *
 * <p>The sketch is sized for the objects cached, as TinyLFU sizes it for a cache's entries, so that
 * it ages (halves its counts) after about ten reads per cached object: it starts small and is
 * replaced by one twice as large, with nothing counted, whenever the objects outgrow it (up to
 * {@value FrequencySketch#MAX_KEYS}).
 *
 * <p>Not thread-safe: guarded by the owning service's lock.
 */
final class AccessFrequencies {
  private FrequencySketch sketch = new FrequencySketch(1);

  /** {@code objects} are cached: grows the sketch if they outgrew it. */
  void objectsCached(int objects) {
    if (objects > sketch.keys() && sketch.keys() < FrequencySketch.MAX_KEYS) {
      sketch = new FrequencySketch(objects);
    }
  }

  /** A read of {@code version} starting at {@code block}; {@code object} is its cached object, or null. */
  void record(ObjectVersion version, int block, Resident object) {
    long key = key(version, block);
    sketch.increment(key);
    if (object != null && object.hotBlock() != block && sketch.frequency(key) >= frequency(object)) {
      object.hotBlock(block);
    }
  }

  /** How often {@code object} was read recently, 0 to {@value FrequencySketch#MAX_FREQUENCY}. */
  int frequency(Resident object) {
    return sketch.frequency(key(object.version(), object.hotBlock()));
  }

  /** Whether {@code candidate} was read more often recently than {@code victim}: only then may it take its place. */
  boolean admits(Resident candidate, Resident victim) {
    return frequency(candidate) > frequency(victim);
  }

  private static long key(ObjectVersion version, int block) {
    return version.hashCode() * 0x9E37_79B9_7F4A_7C15L + block;
  }
}
