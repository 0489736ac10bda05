package io.rubix.core.insight;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.config.InsightConfig;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * What a metadata service saw of the blocks its {@code status} and {@code acquire} answers named: counters
 * per table ({@link PrefixTable}) and the working-set estimate (distinct bytes by {@link BottomKSketch}
 * per quarter of the window, hit ratios of {@link ShadowCaches} of 0.5x, 1x and 2x the capacity).
 *
 * <p>An <em>access</em> is a block read from the cache (a hit), which the reader reports (or, for a
 * caller that does not, a block a {@code status} answer names as cached), or one an {@code acquire}
 * answer grants or denies (a miss: its reader reads the source). Blocks a status names as missing are not
 * accesses (their reader's acquire counts them); a reader that waited for another's fetch and then read
 * the block from the cache reports a hit. The service calls this once per answer, report, grant commit
 * and eviction; every call takes this object's own lock for a few hash and map operations per counted
 * block, never the service's.
 * Thread-safe.
 */
public final class CacheInsight {
  /** Items each quarter-window sketch of distinct bytes keeps. */
  static final int SKETCH_KEYS = 4096;
  private static final int OBSERVED = ShadowCaches.FACTORS.length;
  private static final int SAMPLED = OBSERVED + 1;
  private static final int OBSERVED_HITS = OBSERVED + 2;
  private static final int ACCESSED = OBSERVED + 3;
  private static final int SAMPLED_ACCESSES = OBSERVED + 4;
  private static final int COUNTERS = OBSERVED + 5;

  private final int blockSize;
  private final long capacityBytes;
  private final long windowNanos;
  private final TablePrefix prefixes;
  private final LongSupplier nanoClock;
  private final ReentrantLock lock = new ReentrantLock();
  @GuardedBy("lock")
  private final PrefixTable tables;
  @GuardedBy("lock")
  private final ShadowCaches shadows;
  @GuardedBy("lock")
  private final WindowRing ring;
  /** Per quarter: bytes of sampled accesses that hit each shadow cache, sampled bytes, observed hit bytes, accessed bytes. */
  @GuardedBy("lock")
  private final long[][] counters = new long[WindowRing.SLOTS][COUNTERS];
  @GuardedBy("lock")
  private final BottomKSketch[] sketches = new BottomKSketch[WindowRing.SLOTS];
  @GuardedBy("lock")
  private final boolean[] hits = new boolean[ShadowCaches.FACTORS.length];

  /**
   * @param config prefix depth and entries, window, shadow memory bound
   * @param blockSize the service's block size
   * @param capacityBytes the cache's capacity (all disks), the 1x of the shadow caches
   * @param nanoClock time source of the window (System::nanoTime outside tests)
   */
  public CacheInsight(InsightConfig config, int blockSize, long capacityBytes, LongSupplier nanoClock) {
    requireNonNull(config, "config is null");
    this.blockSize = blockSize;
    this.capacityBytes = capacityBytes;
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    this.windowNanos = config.shadowWindow().toNanos();
    this.prefixes = new TablePrefix(config.prefixDepth());
    this.tables = new PrefixTable(config.prefixEntries());
    this.shadows = new ShadowCaches(capacityBytes, blockSize, config.shadowSampleBlocks());
    this.ring = new WindowRing(windowNanos, nanoClock.getAsLong());
    for (int i = 0; i < sketches.length; i++) {
      sketches[i] = new BottomKSketch(SKETCH_KEYS);
    }
  }

  /** Counts {@code blocks} of {@code version}, which a reader read from the cache, as hits. */
  public void readsReported(ObjectVersion version, int[] blocks) {
    if (blocks.length == 0) {
      return;
    }
    long versionKey = BlockKeys.version(version);
    lock.lock();
    try {
      int slot = currentSlot(nanoClock.getAsLong());
      for (int block : blocks) {
        access(slot, version, versionKey, block, true);
      }
      tables.accessed(prefixes.of(version.path()), blocks.length, blocks.length, 0, 0);
    } finally {
      lock.unlock();
    }
  }

  /** Counts the blocks {@code range}, an {@code acquire} answer, grants or denies, as misses (cached ones are counted when read). */
  public void acquired(BlockRange range) {
    byte[] states = range.states();
    ObjectVersion version = range.version();
    long versionKey = BlockKeys.version(version);
    long missBlocks = 0;
    long grantedBytes = 0;
    lock.lock();
    try {
      int slot = currentSlot(nanoClock.getAsLong());
      for (int i = 0; i < states.length; i++) {
        boolean granted = states[i] == BlockState.GRANTED.code();
        if (granted || states[i] == BlockState.DENIED.code()) {
          missBlocks++;
          int length = access(slot, version, versionKey, range.firstBlock() + i, false);
          if (granted) {
            grantedBytes += length;
          }
        }
      }
      if (missBlocks > 0) {
        tables.accessed(prefixes.of(version.path()), missBlocks, 0, missBlocks, grantedBytes);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Counts one access to {@code block} in the quarter {@code slot}: its bytes, the distinct-bytes sketch, the shadow caches; returns its length. */
  @GuardedBy("lock")
  private int access(int slot, ObjectVersion version, long versionKey, int block, boolean hit) {
    int length = version.blockLength(block, blockSize);
    long[] now = counters[slot];
    if (hit) {
      now[OBSERVED_HITS] += length;
    }
    now[ACCESSED] += length;
    long key = BlockKeys.block(versionKey, block);
    sketches[slot].add(key, length);
    if (shadows.access(key, length, hits)) {
      now[SAMPLED] += length;
      now[SAMPLED_ACCESSES]++;
      for (int f = 0; f < hits.length; f++) {
        if (hits[f]) {
          now[f] += length;
        }
      }
    }
    return length;
  }

  /** Counts the first {@code count} blocks of {@code blocks} of {@code version} as published. */
  public void filled(ObjectVersion version, int[] blocks, int count) {
    if (count == 0) {
      return;
    }
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      bytes += version.blockLength(blocks[i], blockSize);
    }
    String prefix = prefixes.of(version.path());
    lock.lock();
    try {
      tables.filled(prefix, bytes);
    } finally {
      lock.unlock();
    }
  }

  /** Counts an eviction of {@code version} to make room. */
  public void evicted(ObjectVersion version) {
    String prefix = prefixes.of(version.path());
    lock.lock();
    try {
      tables.evicted(prefix);
    } finally {
      lock.unlock();
    }
  }

  /** The counters per table, with the bytes each holds now from {@code cached}, and the working-set estimate. */
  public CacheInsightReport report(List<CachedBytes> cached) {
    Map<String, Long> cachedByPrefix = new HashMap<>();
    for (CachedBytes entry : cached) {
      cachedByPrefix.merge(prefixes.of(entry.path()), entry.bytes(), Long::sum);
    }
    lock.lock();
    try {
      List<TableStats> stats = tables.snapshot(cachedByPrefix);
      return new CacheInsightReport(stats.subList(0, stats.size() - 1), stats.get(stats.size() - 1), workingSet());
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private WorkingSetEstimate workingSet() {
    long nowNanos = nanoClock.getAsLong();
    currentSlot(nowNanos);
    long[] sums = new long[COUNTERS];
    BottomKSketch union = new BottomKSketch(SKETCH_KEYS);
    for (int slot = 0; slot < WindowRing.SLOTS; slot++) {
      if (ring.live(slot, nowNanos)) {
        for (int c = 0; c < COUNTERS; c++) {
          sums[c] += counters[slot][c];
        }
        union.addAll(sketches[slot]);
      }
    }
    return new WorkingSetEstimate(windowNanos / 1_000_000, union.distinctBytes(), capacityBytes, shadows.rate(), sums[ACCESSED],
        ratio(sums[OBSERVED_HITS], sums[ACCESSED]), shadowRatio(sums, 0), shadowRatio(sums, 1), shadowRatio(sums, 2), sums[SAMPLED_ACCESSES]);
  }

  /**
   * The hit ratio of shadow cache {@code f} with SHARDS' adjustment: the sampled stream holds by
   * chance more or fewer bytes than {@code rate} of the whole (a popular block sampled or not), and the
   * difference is counted as hits or misses at the smallest reuse distances, where a popular block's
   * accesses fall, so the ratio is taken over {@code rate} times all bytes accessed. NaN (unknown) while
   * sampling with fewer than {@link WorkingSetEstimate#MIN_SAMPLED_ACCESSES} sampled accesses.
   */
  @GuardedBy("lock")
  private double shadowRatio(long[] sums, int f) {
    if (shadows.rate() < 1 && sums[SAMPLED_ACCESSES] < WorkingSetEstimate.MIN_SAMPLED_ACCESSES) {
      return Double.NaN;
    }
    double expected = shadows.rate() * sums[ACCESSED];
    if (expected <= 0) {
      return 0;
    }
    double adjusted = sums[f] + expected - sums[SAMPLED];
    return Math.max(0, Math.min(1, adjusted / expected));
  }

  /** The slot of the quarter holding {@code nowNanos}, cleared when it held an older quarter. */
  @GuardedBy("lock")
  private int currentSlot(long nowNanos) {
    int slot = ring.slot(nowNanos);
    if (ring.claim(slot, nowNanos)) {
      Arrays.fill(counters[slot], 0);
      sketches[slot].clear();
    }
    return slot;
  }

  private static double ratio(long part, long whole) {
    return whole == 0 ? 0 : (double) part / whole;
  }
}
