package io.rubix.core.cluster.rest;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes (no sleeps as synchronisation). */
final class Await {
  private Await() {}

  static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout.toMillis() + " ms waiting for: " + what);
      }
      Thread.sleep(5);
    }
  }
}
