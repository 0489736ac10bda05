package io.rubix.core.metadata.eviction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FrequencySketchTest {
  @Test
  void countsUpToFifteenAndNeverBelowTheTrueCount() {
    FrequencySketch sketch = new FrequencySketch(1024);
    for (int i = 0; i < 7; i++) {
      sketch.increment(42);
    }
    for (long key = 1_000; key < 1_500; key++) {
      sketch.increment(key);
    }
    assertThat(sketch.frequency(42)).isGreaterThanOrEqualTo(7).isLessThanOrEqualTo(8);
    for (int i = 0; i < 20; i++) {
      sketch.increment(43);
    }
    assertThat(sketch.frequency(43)).isEqualTo(FrequencySketch.MAX_FREQUENCY);
    assertThat(sketch.frequency(44)).isLessThanOrEqualTo(1);
  }

  @Test
  void halvesEveryCounterWhenTheSampleIsFull() {
    FrequencySketch sketch = new FrequencySketch(64);
    for (int i = 0; i < 12; i++) {
      sketch.increment(7);
    }
    long key = 1_000_000;
    while (sketch.halvings() == 0) {
      sketch.increment(key++);
    }
    assertThat(sketch.frequency(7)).isEqualTo(6);
    long sample = sketch.sampleSize();
    while (sketch.halvings() < 4) {
      sketch.increment(key++);
    }
    assertThat(sketch.frequency(7)).as("after 4 halvings (sample %s)", sample).isLessThanOrEqualTo(1);
  }
}
