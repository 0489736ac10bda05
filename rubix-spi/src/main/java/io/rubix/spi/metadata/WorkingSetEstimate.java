package io.rubix.spi.metadata;

/**
 * How much data the recent workload touched, and how a cache of another size would have done with it,
 * estimated from the blocks the metadata service's {@code status} and {@code acquire} answers named over
 * the last window (to within a quarter of it).
 *
 * @param windowMillis the window the estimate covers
 * @param distinctBytes distinct bytes (blocks, at their length) named in the window
 * @param capacityBytes the cache's capacity, the 1x of the shadow caches
 * @param sampleRate share of blocks the shadow caches sample (spatial sampling by key hash)
 * @param accessedBytes bytes of blocks named in the window, repeats included
 * @param observedHitRatio byte hit ratio of the real cache in the window, counted like the shadow ones
 * @param shadowHitRatioHalf byte hit ratio an LRU cache of half the capacity would have had in the window; NaN
 *     (not known yet) while sampling ({@code sampleRate < 1}) and fewer than {@link #MIN_SAMPLED_ACCESSES}
 *     accesses were sampled
 * @param shadowHitRatioOne ... of the capacity
 * @param shadowHitRatioDouble ... of twice the capacity
 * @param sampledAccesses block accesses in the window that the shadow caches sampled
 */
public record WorkingSetEstimate(long windowMillis, long distinctBytes, long capacityBytes, double sampleRate, long accessedBytes,
    double observedHitRatio, double shadowHitRatioHalf, double shadowHitRatioOne, double shadowHitRatioDouble, long sampledAccesses) {
  /** Sampled accesses below which a sampled shadow hit ratio is not reported (its error would be several points). */
  public static final long MIN_SAMPLED_ACCESSES = 1000;

  /** Whether the shadow hit ratios are known (not NaN). */
  public boolean shadowKnown() {
    return !Double.isNaN(shadowHitRatioOne);
  }
}
