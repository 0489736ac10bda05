package io.rubix.core.metadata.eviction;

/**
 * The share of each disk's cap the TinyLFU window holds, adapted to the workload by hill climbing as
 * Caffeine does (Einziger et al., "Adaptive Software Cache Management", Middleware 2018): after each
 * sample of reads it compares the sample's byte hit ratio with the previous one's and moves the share
 * one step the same way if the ratio did not drop, the other way if it did. A step starts at
 * {@value #STEP} of the cap and shrinks by {@value #DECAY}x each sample, so the share settles; a jump
 * of the hit ratio by {@value #RESTART} or more (the workload changed) restarts it at full size.
 * A larger window favours recency (at 1.0 the policy is LRU), a smaller one frequency.
 *
 * <p>Not thread-safe: guarded by the owning service's lock.
 */
public final class HillClimber {
  public static final double INITIAL_WINDOW = 0.01;
  static final double STEP = 0.0625;
  static final double DECAY = 0.98;
  static final double RESTART = 0.05;
  /** Samples are of ten reads per cached object, but never of fewer than ten times this. */
  public static final int MIN_SAMPLE_OBJECTS = 10;

  private double window = INITIAL_WINDOW;
  /** Signed: the next move when the hit ratio does not drop. */
  private double step = STEP;
  private double previousHitRatio;
  private long sampleRequests;
  private long sampleHitBytes;
  private long sampleBytes;
  private long samples;

  /** The window's share of each disk's cap, 0 to 1. */
  double window() {
    return window;
  }

  /** Samples taken so far. */
  long samples() {
    return samples;
  }

  /**
   * A read of {@code bytes}, {@code hitBytes} of them cached; ends the sample when it holds
   * {@code sampleSize} reads and then returns true: the {@linkplain #window share} may have moved.
   */
  boolean record(long hitBytes, long bytes, long sampleSize) {
    sampleRequests++;
    sampleHitBytes += hitBytes;
    sampleBytes += bytes;
    if (sampleRequests < sampleSize) {
      return false;
    }
    climb(sampleBytes == 0 ? previousHitRatio : (double) sampleHitBytes / sampleBytes);
    sampleRequests = 0;
    sampleHitBytes = 0;
    sampleBytes = 0;
    return true;
  }

  private void climb(double hitRatio) {
    double change = hitRatio - previousHitRatio;
    double move = change >= 0 ? step : -step;
    window = Math.max(0, Math.min(1, window + move));
    step = Math.abs(change) >= RESTART ? Math.copySign(STEP, move) : DECAY * move;
    previousHitRatio = hitRatio;
    samples++;
  }
}
