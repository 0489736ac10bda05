package io.rubix.core.insight;

/**
 * The byte hit ratios LRU caches of 0.5x, 1x and 2x a capacity would have had, by spatial sampling
 * (SHARDS: Waldspurger et al., "Efficient MRC construction with SHARDS", FAST 2015): only blocks whose
 * key hash falls below {@code rate} of the hash range are simulated, in LRU caches of {@code rate}
 * times each size; a block is either always or never sampled, so the sampled stream keeps the reuse
 * pattern of the whole one and its hit ratio estimates the whole cache's. The rate is set so the 2x
 * cache holds about {@code sampleBlocks} full blocks, the 1x and 0.5x ones a half and a quarter of
 * that; each holds at most twice that many keys (when many are short last blocks), so memory is
 * bounded by {@code 3.5 sampleBlocks} keys (about 100 bytes each in a {@code LinkedHashMap}: 5.6 MiB at
 * the default 16384) whatever the capacity; a workload of mostly tiny objects then simulates a
 * smaller cache than asked. Chosen over Bloom-filter generations (Alluxio's shadow cache), which answer "seen
 * within the window" (the working set) but not the hit ratio of a smaller or larger LRU.
 * Not thread-safe.
 */
final class ShadowCaches {
  static final double[] FACTORS = {0.5, 1, 2};

  private final double rate;
  private final long threshold;
  private final ShadowLru[] caches = new ShadowLru[FACTORS.length];

  ShadowCaches(long capacityBytes, int blockSize, int sampleBlocks) {
    double wanted = (double) sampleBlocks * blockSize / (2.0 * Math.max(1, capacityBytes));
    this.rate = Math.min(1.0, wanted);
    this.threshold = rate >= 1.0 ? Long.MAX_VALUE : (long) (rate * 0x1p63);
    for (int i = 0; i < FACTORS.length; i++) {
      caches[i] = new ShadowLru((long) (rate * FACTORS[i] * capacityBytes), (int) (FACTORS[i] * sampleBlocks));
    }
  }

  double rate() {
    return rate;
  }

  /**
   * Records an access to the block with key {@code key}; when it is sampled, sets {@code hits[i]} to
   * whether the cache of {@code FACTORS[i]} held it and returns true, else returns false.
   */
  boolean access(long key, int length, boolean[] hits) {
    long hash = BlockKeys.mix(key ^ 0x5DEECE66DL) >>> 1;
    if (hash >= threshold && threshold != Long.MAX_VALUE) {
      return false;
    }
    for (int i = 0; i < caches.length; i++) {
      hits[i] = caches[i].access(key, length);
    }
    return true;
  }

  /** Keys held by all shadow caches together. */
  int keys() {
    int keys = 0;
    for (ShadowLru cache : caches) {
      keys += cache.size();
    }
    return keys;
  }
}
