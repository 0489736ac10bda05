package io.rubix.bookkeeper.server;

import io.rubix.core.stats.CacheCounter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the reading JVMs of this node counted, summed from their reports ({@code reportCounters}):
 * hits, misses, bytes from the source and from peers, fallbacks by cause. The daemon sees none of
 * these itself (a warm read never calls it), so this is how an operator gets a node's hit ratio from
 * one scrape. Exported as {@code rubix_engines_<counter>}, e.g. {@code rubix_engines_cache_hit_bytes}.
 *
 * <p>Trust: any caller that passed the connection handshake (a member of the cache group) can report;
 * a report can only add to these totals, never touch the cache. Names must be {@link CacheCounter}s',
 * values in [0, {@value #MAX_VALUE}), at most {@link #MAX_ENTRIES} per report; a report breaking any of
 * these is refused whole, as a bad request.
 */
public final class EngineCounters {
  /** Most entries one report may hold: one per counter. */
  static final int MAX_ENTRIES = CacheCounter.values().length;
  /** Largest value one report may add to a counter (256 TiB), so that totals do not wrap in practice. */
  static final long MAX_VALUE = 1L << 48;
  private static final String PREFIX = "rubix_";

  private final Map<String, LongAdder> totals = new LinkedHashMap<>();
  private final LongAdder reports = new LongAdder();

  public EngineCounters() {
    for (CacheCounter counter : CacheCounter.values()) {
      totals.put(counter.statisticName(), new LongAdder());
    }
  }

  /** Adds one report, all of it or, when any entry is invalid, nothing ({@link IllegalArgumentException}). */
  void add(Map<String, Long> deltas) {
    if (deltas == null) {
      throw new IllegalArgumentException("no counters");
    }
    if (deltas.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException(deltas.size() + " counters, at most " + MAX_ENTRIES);
    }
    for (Map.Entry<String, Long> entry : deltas.entrySet()) {
      if (!totals.containsKey(entry.getKey())) {
        throw new IllegalArgumentException("unknown counter " + entry.getKey());
      }
      Long value = entry.getValue();
      if (value == null || value < 0 || value >= MAX_VALUE) {
        throw new IllegalArgumentException("counter " + entry.getKey() + " value " + value + " outside [0, " + MAX_VALUE + ")");
      }
    }
    deltas.forEach((name, value) -> totals.get(name).add(value));
    reports.increment();
  }

  /** Every total as {@code rubix_engines_<counter>}, and {@code rubix_engines_reports}. */
  public Map<String, Long> snapshot() {
    Map<String, Long> values = new LinkedHashMap<>();
    totals.forEach((name, total) -> values.put(exportedName(name), total.sum()));
    values.put("rubix_engines_reports", reports.sum());
    return values;
  }

  /** The name the total of counter {@code statisticName} is exported under. */
  public static String exportedName(String statisticName) {
    return "rubix_engines_" + statisticName.substring(PREFIX.length());
  }
}
