package io.rubix.core.insight;

import java.util.Arrays;

/**
 * Which of four rotating slots holds the current quarter of a sliding window, so that the last four
 * quarters (the current, partial one included) stand for the window. Not thread-safe.
 */
final class WindowRing {
  static final int SLOTS = 4;

  private final long slotNanos;
  private final long originNanos;
  private final long[] epochOfSlot = new long[SLOTS];

  WindowRing(long windowNanos, long nowNanos) {
    if (windowNanos < SLOTS) {
      throw new IllegalArgumentException("window too short: " + windowNanos + " ns");
    }
    this.slotNanos = windowNanos / SLOTS;
    this.originNanos = nowNanos;
    Arrays.fill(epochOfSlot, -1);
  }

  /** The slot of the quarter holding {@code nowNanos}. */
  int slot(long nowNanos) {
    return (int) (epoch(nowNanos) % SLOTS);
  }

  /**
   * Makes {@code slot} the slot of the quarter holding {@code nowNanos}; true when it held an older
   * quarter (or none), whose contents the caller must then clear.
   */
  boolean claim(int slot, long nowNanos) {
    long epoch = epoch(nowNanos);
    if (epochOfSlot[slot] == epoch) {
      return false;
    }
    epochOfSlot[slot] = epoch;
    return true;
  }

  /** Whether {@code slot} holds one of the four quarters up to {@code nowNanos}. */
  boolean live(int slot, long nowNanos) {
    return epochOfSlot[slot] >= 0 && epoch(nowNanos) - epochOfSlot[slot] < SLOTS;
  }

  private long epoch(long nowNanos) {
    return Math.max(0, (nowNanos - originNanos) / slotNanos);
  }
}
