package io.rubix.core.metadata.eviction;

/**
 * How often keys were seen recently, approximately: a count-min sketch of 4-bit counters (so at most
 * 15) that halves every counter once it has counted as many additions as its sample size, so that
 * what was read often long ago counts less and less. An estimate is never below the true count since
 * the last halvings, and above it only where other keys share all of its counters.
 *
 * <p>Each key is a 64-bit hash; it owns four counters picked by double hashing from it. An addition
 * increments only those of its counters that hold the minimum (a conservative update: keys that
 * share a counter with a frequent one are overestimated less). Sized, as TinyLFU suggests, with
 * sixteen counters per key it should tell apart and a sample of ten additions per key.
 *
 * <p>Not thread-safe: guarded by the owning service's lock. Holds no key, only counters.
 */
final class FrequencySketch {
  static final int MAX_FREQUENCY = 15;
  private static final int PROBES = 4;
  /** Largest sizing: 2 MiB of counters. */
  static final int MAX_KEYS = 1 << 18;
  private static final long HALF_MASK = 0x7777_7777_7777_7777L;

  /** Sixteen 4-bit counters per long. */
  private final long[] table;
  private final int counterMask;
  private final long sampleSize;
  private long additions;
  private long halvings;

  /**
   * A sketch for telling apart about {@code keys} keys (rounded up to a power of two, 64 to {@value #MAX_KEYS}),
   * which halves its counters every ten additions per key.
   */
  FrequencySketch(int keys) {
    if (keys < 1) {
      throw new IllegalArgumentException("keys must be positive: " + keys);
    }
    int rounded = Integer.highestOneBit(Math.max(64, Math.min(keys, MAX_KEYS)) - 1) << 1;
    // sixteen counters per key, sixteen counters per long
    this.table = new long[rounded];
    this.counterMask = rounded * 16 - 1;
    this.sampleSize = 10L * rounded;
  }

  /** Counts one more sighting of {@code hash}; halves every counter when the sample is full. */
  void increment(long hash) {
    long mixed = mix(hash);
    int min = min(mixed);
    if (min < MAX_FREQUENCY) {
      for (int i = 0; i < PROBES; i++) {
        int counter = counter(mixed, i);
        if (get(counter) == min) {
          table[counter >>> 4] += 1L << shift(counter);
        }
      }
    }
    if (++additions >= sampleSize) {
      halve();
    }
  }

  /** How often {@code hash} was seen, 0 to {@value #MAX_FREQUENCY}, counting a sighting before each of the last halvings half. */
  int frequency(long hash) {
    return min(mix(hash));
  }

  /** How many times the counters were halved so far. */
  long halvings() {
    return halvings;
  }

  /** How many keys it is sized for. */
  int keys() {
    return table.length;
  }

  /** Additions that halve the counters. */
  long sampleSize() {
    return sampleSize;
  }

  private void halve() {
    for (int i = 0; i < table.length; i++) {
      table[i] = (table[i] >>> 1) & HALF_MASK;
    }
    additions /= 2;
    halvings++;
  }

  private int min(long mixed) {
    int min = MAX_FREQUENCY;
    for (int i = 0; i < PROBES; i++) {
      min = Math.min(min, get(counter(mixed, i)));
    }
    return min;
  }

  /** The {@code i}th counter of a key: double hashing with the two halves of its mixed hash. */
  private int counter(long mixed, int i) {
    return ((int) mixed + i * ((int) (mixed >>> 32) | 1)) & counterMask;
  }

  private int get(int counter) {
    return (int) (table[counter >>> 4] >>> shift(counter)) & 0xF;
  }

  private static int shift(int counter) {
    return (counter & 15) << 2;
  }

  /** Spreads the bits of {@code hash} (the 64-bit finalizer of MurmurHash3). */
  static long mix(long hash) {
    long h = hash;
    h ^= h >>> 33;
    h *= 0xff51_afd7_ed55_8ccdL;
    h ^= h >>> 33;
    h *= 0xc4ce_b9fe_1a85_ec53L;
    h ^= h >>> 33;
    return h;
  }
}
