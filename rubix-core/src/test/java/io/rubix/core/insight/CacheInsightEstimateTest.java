package io.rubix.core.insight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.rubix.core.config.InsightConfig;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.WorkingSetEstimate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The working-set estimate against exact answers computed from the same seeded synthetic traces. */
class CacheInsightEstimateTest {
  private static final int BLOCK = 4096;
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  @Test
  void distinctBytesWithinFivePercentOfExact() {
    for (long seed : new long[] {1, 2, 3}) {
      Trace trace = Trace.zipf(seed, 5_000, 300_000);
      CacheInsight insight = insight(Duration.ofHours(1), 64L << 20, 4096);
      trace.replay(insight, clock, 0);
      long exact = trace.distinctBytes(0, trace.size());
      long estimate = insight.report(List.of()).workingSet().distinctBytes();
      System.out.printf("distinct bytes, seed %d: exact %d, estimate %d (%+.2f%%)%n", seed, exact, estimate, 100.0 * (estimate - exact) / exact);
      assertThat((double) estimate).as("seed %d: exact %d", seed, exact).isCloseTo(exact, within(0.05 * exact));
      assertThat(exact).as("more distinct blocks than the sketch keeps exactly").isGreaterThan(10L * CacheInsight.SKETCH_KEYS * BLOCK);
    }
  }

  @Test
  void distinctBytesForgetAccessesOlderThanTheWindow() {
    Trace trace = Trace.zipf(7, 2_000, 60_000);
    CacheInsight insight = insight(Duration.ofMinutes(4), 64L << 20, 4096);
    // the first half one second apart from the second half, then two windows of silence, then the second half again
    trace.replay(insight, clock, 0, trace.size() / 2);
    clock.addAndGet(TimeUnit.MINUTES.toNanos(8));
    trace.replay(insight, clock, trace.size() / 2, trace.size());
    long exact = trace.distinctBytes(trace.size() / 2, trace.size());
    long estimate = insight.report(List.of()).workingSet().distinctBytes();
    assertThat((double) estimate).isCloseTo(exact, within(0.05 * exact));
    clock.addAndGet(TimeUnit.MINUTES.toNanos(5));
    assertThat(insight.report(List.of()).workingSet().distinctBytes()).isZero();
  }

  @Test
  void shadowHitRatiosWithinTwoPointsOfExactLruReplays() {
    for (long seed : new long[] {11, 12}) {
      Trace trace = Trace.zipf(seed, 4_000, 400_000);
      long capacity = 6_000L * BLOCK;
      CacheInsight insight = insight(Duration.ofHours(1), capacity, 2048);
      trace.replay(insight, clock, 0);
      WorkingSetEstimate estimate = insight.report(List.of()).workingSet();
      assertThat(estimate.sampleRate()).as("sampling is on").isLessThan(0.2);
      double half = trace.lruHitRatio(capacity / 2);
      double one = trace.lruHitRatio(capacity);
      double twice = trace.lruHitRatio(2 * capacity);
      System.out.printf("shadow hit ratio, seed %d, rate %.4f: 0.5x %.4f (exact %.4f), 1x %.4f (exact %.4f), 2x %.4f (exact %.4f)%n", seed,
          estimate.sampleRate(), estimate.shadowHitRatioHalf(), half, estimate.shadowHitRatioOne(), one, estimate.shadowHitRatioDouble(), twice);
      assertThat(estimate.shadowHitRatioHalf()).as("0.5x, seed %d", seed).isCloseTo(half, within(0.02));
      assertThat(estimate.shadowHitRatioOne()).as("1x, seed %d", seed).isCloseTo(one, within(0.02));
      assertThat(estimate.shadowHitRatioDouble()).as("2x, seed %d", seed).isCloseTo(twice, within(0.02));
      assertThat(half).as("the sizes differ enough to matter").isLessThan(one - 0.05);
      assertThat(one).isLessThan(twice - 0.05);
    }
  }

  @Test
  void sampledShadowRatiosAreUnknownUntilEnoughAccessesWereSampled() {
    Trace trace = Trace.zipf(3, 4_000, 20_000);
    CacheInsight insight = insight(Duration.ofHours(1), 6_000L * BLOCK, 2048);
    trace.replay(insight, clock, 0, 1_000);
    WorkingSetEstimate early = insight.report(List.of()).workingSet();
    assertThat(early.sampleRate()).isLessThan(1);
    assertThat(early.sampledAccesses()).isLessThan(WorkingSetEstimate.MIN_SAMPLED_ACCESSES);
    assertThat(early.shadowKnown()).isFalse();
    assertThat(early.shadowHitRatioOne()).isNaN();
    trace.replay(insight, clock, 1_000, trace.size());
    WorkingSetEstimate later = insight.report(List.of()).workingSet();
    assertThat(later.sampledAccesses()).isGreaterThanOrEqualTo(WorkingSetEstimate.MIN_SAMPLED_ACCESSES);
    assertThat(later.shadowHitRatioOne()).isBetween(0.0, 1.0);
  }

  @Test
  void shadowCachesStayWithinTheirKeyBound() {
    int sampleBlocks = 1024;
    // every block sampled (rate 1), and each one byte long: only the key bound stops the caches growing
    ShadowCaches shadows = new ShadowCaches((long) sampleBlocks * BLOCK / 2, BLOCK, sampleBlocks);
    assertThat(shadows.rate()).isEqualTo(1.0);
    boolean[] hits = new boolean[3];
    for (int i = 0; i < 1_000_000; i++) {
      assertThat(shadows.access(BlockKeys.block(42, i), 1, hits)).isTrue();
    }
    assertThat(shadows.keys()).isEqualTo(sampleBlocks / 2 + sampleBlocks + 2 * sampleBlocks);
    // a larger cache samples less, whatever its size
    assertThat(new ShadowCaches(1L << 40, BLOCK, sampleBlocks).rate()).isCloseTo((double) sampleBlocks * BLOCK / (2.0 * (1L << 40)), within(1e-12));
  }

  private CacheInsight insight(Duration window, long capacity, int sampleBlocks) {
    return new CacheInsight(new InsightConfig(3, 50, window, sampleBlocks), BLOCK, capacity, clock::get);
  }

  /** Block accesses: Zipf(0.9)-popular files of 1 to 64 blocks (last blocks shorter), a run of 1 to 8 blocks from a random block each. */
  record Trace(List<ObjectVersion> versions, int[] files, int[] blocks) {
    static Trace zipf(long seed, int fileCount, int accesses) {
      Random random = new Random(seed);
      List<ObjectVersion> versions = new ArrayList<>();
      double[] cumulative = new double[fileCount];
      double sum = 0;
      for (int f = 0; f < fileCount; f++) {
        long length = (long) (1 + random.nextInt(64)) * BLOCK - random.nextInt(BLOCK);
        versions.add(new ObjectVersion("s3a://lake/db/t" + (f % 97) + "/part-" + f, length, 1_000 + f, "etag-" + f));
        sum += 1 / Math.pow(f + 1, 0.9);
        cumulative[f] = sum;
      }
      int[] files = new int[accesses];
      int[] blocks = new int[accesses];
      int i = 0;
      while (i < accesses) {
        double u = random.nextDouble() * sum;
        int lo = 0;
        int hi = fileCount - 1;
        while (lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (cumulative[mid] < u) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        int count = versions.get(lo).blockCount(BLOCK);
        int first = random.nextInt(count);
        int run = Math.min(count - first, 1 + random.nextInt(8));
        for (int b = first; b < first + run && i < accesses; b++, i++) {
          files[i] = lo;
          blocks[i] = b;
        }
      }
      return new Trace(versions, files, blocks);
    }

    int size() {
      return files.length;
    }

    ObjectVersion version(int i) {
      return versions.get(files[i]);
    }

    int block(int i) {
      return blocks[i];
    }

    int length(int i) {
      return version(i).blockLength(blocks[i], BLOCK);
    }

    void replay(CacheInsight insight, AtomicLong clock, int from) {
      replay(insight, clock, from, size());
    }

    /** Each access as a reported read of the block, one microsecond apart. */
    void replay(CacheInsight insight, AtomicLong clock, int from, int to) {
      for (int i = from; i < to; i++) {
        insight.readsReported(version(i), new int[] {blocks[i]});
        clock.addAndGet(1_000);
      }
    }

    long distinctBytes(int from, int to) {
      Set<Long> seen = new HashSet<>();
      long bytes = 0;
      for (int i = from; i < to; i++) {
        if (seen.add(((long) files[i] << 32) | blocks[i])) {
          bytes += length(i);
        }
      }
      return bytes;
    }

    /** The byte hit ratio of an exact LRU of blocks holding at most {@code capacity} bytes. */
    double lruHitRatio(long capacity) {
      LinkedHashMap<Long, Integer> lru = new LinkedHashMap<>(16, 0.75f, true);
      long used = 0;
      long hitBytes = 0;
      long totalBytes = 0;
      for (int i = 0; i < size(); i++) {
        long key = ((long) files[i] << 32) | blocks[i];
        int length = length(i);
        totalBytes += length;
        if (lru.get(key) != null) {
          hitBytes += length;
          continue;
        }
        lru.put(key, length);
        used += length;
        Iterator<Map.Entry<Long, Integer>> eldest = lru.entrySet().iterator();
        while (used > capacity) {
          used -= eldest.next().getValue();
          eldest.remove();
        }
      }
      return (double) hitBytes / totalBytes;
    }
  }
}
