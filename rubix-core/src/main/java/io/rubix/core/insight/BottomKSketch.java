package io.rubix.core.insight;

import java.util.Arrays;

/**
 * The distinct bytes of a stream of (key, length) items, estimated from the {@code k} smallest hashes
 * seen (a bottom-k, or KMV, sketch: Bar-Yossef et al. 2002; Cohen and Kaplan 2007) with each one's
 * length. Below {@code k} distinct keys the answer is exact; above, each of the {@code k - 1} smallest
 * hashes stands for the items of its length with probability {@code tau}, the {@code k}-th smallest
 * hash as a fraction of the hash range, so their lengths summed and divided by {@code tau} estimate the
 * total (relative standard error about {@code 1/sqrt(k - 2)}: 1.6% at k = 4096). Kept rather than a
 * HyperLogLog because it counts bytes, not keys (last blocks of objects are shorter), and two sketches
 * merge into the sketch of the union, which is how windows slide. {@code 12 k} bytes. Not thread-safe.
 */
final class BottomKSketch {
  private final int k;
  /** Sorted ascending, non-negative (hash >>> 1). */
  private final long[] hashes;
  private final int[] lengths;
  private int size;

  BottomKSketch(int k) {
    if (k < 2) {
      throw new IllegalArgumentException("k must be at least 2: " + k);
    }
    this.k = k;
    this.hashes = new long[k];
    this.lengths = new int[k];
  }

  void add(long key, int length) {
    long hash = key >>> 1;
    if (size == k && hash >= hashes[k - 1]) {
      return;
    }
    int pos = Arrays.binarySearch(hashes, 0, size, hash);
    if (pos >= 0) {
      return;
    }
    pos = -pos - 1;
    int kept = Math.min(size, k - 1);
    System.arraycopy(hashes, pos, hashes, pos + 1, kept - pos);
    System.arraycopy(lengths, pos, lengths, pos + 1, kept - pos);
    hashes[pos] = hash;
    lengths[pos] = length;
    size = kept + 1;
  }

  void clear() {
    size = 0;
  }

  /** Adds every item of {@code other} (the result is the sketch of the union of both streams). */
  void addAll(BottomKSketch other) {
    for (int i = 0; i < other.size; i++) {
      add(other.hashes[i] << 1, other.lengths[i]);
    }
  }

  /** The estimated distinct bytes. */
  long distinctBytes() {
    if (size < k) {
      long sum = 0;
      for (int i = 0; i < size; i++) {
        sum += lengths[i];
      }
      return sum;
    }
    double tau = (hashes[k - 1] + 1.0) / 0x1p63;
    double sum = 0;
    for (int i = 0; i < k - 1; i++) {
      sum += lengths[i];
    }
    return Math.round(sum / tau);
  }
}
