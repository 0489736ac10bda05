package io.rubix.core.stats;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one cache-enabled file system, summed over all its streams. Thread-safe. */
public final class CacheStats {
  private final EnumMap<CacheCounter, LongAdder> counters = new EnumMap<>(CacheCounter.class);

  public CacheStats() {
    for (CacheCounter counter : CacheCounter.values()) {
      counters.put(counter, new LongAdder());
    }
  }

  public void add(CacheCounter counter, long value) {
    counters.get(counter).add(value);
  }

  public long get(CacheCounter counter) {
    return counters.get(counter).sum();
  }

  public Map<String, Long> snapshot() {
    Map<String, Long> result = new LinkedHashMap<>();
    counters.forEach((counter, adder) -> result.put(counter.statisticName(), adder.sum()));
    return result;
  }
}
