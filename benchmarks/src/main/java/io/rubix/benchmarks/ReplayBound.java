package io.rubix.benchmarks;

import io.rubix.spi.ObjectVersion;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * What no eviction policy can beat on a trace, for a cache of a given number of blocks: the byte hit
 * ratio of Belady's MIN on blocks (on a miss, the block whose next read is farthest away, the newcomer
 * included, is the one not kept: optimal for blocks of one size, which the traces' blocks all are), and
 * the share of bytes read for the first time, which even an infinite cache misses.
 *
 * <p>Both are upper bounds for the real service: they charge neither the 4 KiB per object nor the
 * rounding of blocks to 4 KiB units, and keep single blocks where the service evicts whole object
 * versions.
 */
record ReplayBound(double beladyHitRatio, double firstReadShare) {
  static ReplayBound of(ReplayTrace trace, int blockSize, long cacheBlocks) {
    Map<ObjectVersion, Integer> firstIds = new HashMap<>();
    int[] ids = new int[trace.reads().stream().mapToInt(read -> read.end() - read.first()).sum()];
    int[] lengths = new int[ids.length];
    int n = 0;
    int nextId = 0;
    for (ReplayTrace.Read read : trace.reads()) {
      Integer base = firstIds.get(read.version());
      if (base == null) {
        base = nextId;
        firstIds.put(read.version(), base);
        nextId += read.version().blockCount(blockSize);
      }
      for (int b = read.first(); b < read.end(); b++) {
        ids[n] = base + b;
        lengths[n++] = read.version().blockLength(b, blockSize);
      }
    }
    // next read of the same block, or n (never)
    int[] next = new int[n];
    int[] last = new int[nextId];
    Arrays.fill(last, n);
    for (int i = n - 1; i >= 0; i--) {
      next[i] = last[ids[i]];
      last[ids[i]] = i;
    }
    long total = 0;
    long hits = 0;
    long firstReads = 0;
    boolean[] seen = new boolean[nextId];
    // cached blocks by their next read (farthest first); entries made stale by a later read are skipped
    int[] cachedUntil = new int[nextId];
    Arrays.fill(cachedUntil, -1);
    PriorityQueue<long[]> farthest = new PriorityQueue<>((a, b) -> Long.compare(b[0], a[0]));
    long cached = 0;
    for (int i = 0; i < n; i++) {
      int id = ids[i];
      total += lengths[i];
      if (!seen[id]) {
        seen[id] = true;
        firstReads += lengths[i];
      }
      if (cachedUntil[id] == i) {
        hits += lengths[i];
      } else if (next[i] < n) {
        cached++;
      } else {
        continue;
      }
      cachedUntil[id] = next[i];
      farthest.add(new long[] {next[i], id});
      while (cached > cacheBlocks) {
        long[] top = farthest.poll();
        if (cachedUntil[(int) top[1]] == top[0]) {
          cachedUntil[(int) top[1]] = -1;
          cached--;
        }
      }
    }
    return new ReplayBound(total == 0 ? 0 : (double) hits / total, total == 0 ? 0 : (double) firstReads / total);
  }
}
