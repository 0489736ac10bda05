package io.rubix.core.insight;

import io.rubix.spi.metadata.TableStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counters of at most {@code capacity} prefixes plus one {@code other} entry, kept by the Space-Saving
 * algorithm (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and top-k elements in
 * data streams", 2005) weighted by blocks accessed: an access to a prefix without an entry, when the
 * table is full, takes over the entry with the least weight, whose weight it inherits (recorded as the
 * new entry's weight error) and whose counters move to {@code other}. Every prefix that had more than
 * {@code 1/capacity} of all the weight is guaranteed an entry, whatever the number of distinct
 * prefixes; a bounded map that only admitted the first N prefixes, or that dropped the least recently
 * used, would give the label set to whichever tables came first or last, not to the heavy ones.
 * Evictions, grants and fills of a prefix without an entry count for {@code other}. Not thread-safe.
 */
final class PrefixTable {
  private final int capacity;
  private final Map<String, Entry> entries = new HashMap<>();
  private final Entry other = new Entry(TableStats.OTHER);

  PrefixTable(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
  }

  /** Counts an access to {@code blocks} blocks of {@code prefix}, {@code hits} of them cached and {@code misses} not. */
  void accessed(String prefix, long blocks, long hits, long misses, long grantedBytes) {
    Entry entry = entries.get(prefix);
    if (entry == null) {
      entry = admit(prefix);
    }
    entry.weight += blocks;
    entry.hits += hits;
    entry.misses += misses;
    entry.grantedBytes += grantedBytes;
  }

  void filled(String prefix, long bytes) {
    entries.getOrDefault(prefix, other).filledBytes += bytes;
  }

  void evicted(String prefix) {
    entries.getOrDefault(prefix, other).evictions++;
  }

  /** Whether {@code prefix} has its own entry. */
  boolean tracks(String prefix) {
    return entries.containsKey(prefix);
  }

  int size() {
    return entries.size();
  }

  /**
   * The entries, heaviest first, then {@code other} last, with the bytes cached of each prefix from
   * {@code cachedBytes} (prefixes without an entry summed into {@code other}).
   */
  List<TableStats> snapshot(Map<String, Long> cachedBytes) {
    List<Entry> sorted = new ArrayList<>(entries.values());
    sorted.sort(Comparator.comparingLong((Entry e) -> e.weight).reversed().thenComparing(e -> e.prefix));
    List<TableStats> result = new ArrayList<>(sorted.size() + 1);
    long otherCached = 0;
    for (Map.Entry<String, Long> cached : cachedBytes.entrySet()) {
      if (!entries.containsKey(cached.getKey())) {
        otherCached += cached.getValue();
      }
    }
    for (Entry entry : sorted) {
      result.add(entry.stats(cachedBytes.getOrDefault(entry.prefix, 0L)));
    }
    result.add(other.stats(otherCached));
    return result;
  }

  private Entry admit(String prefix) {
    Entry entry = new Entry(prefix);
    if (entries.size() >= capacity) {
      Entry lightest = null;
      for (Entry candidate : entries.values()) {
        if (lightest == null || candidate.weight < lightest.weight) {
          lightest = candidate;
        }
      }
      entries.remove(lightest.prefix);
      other.absorb(lightest);
      entry.weight = lightest.weight;
      entry.error = lightest.weight;
    }
    entries.put(prefix, entry);
    return entry;
  }

  private static final class Entry {
    final String prefix;
    long weight;
    long error;
    long hits;
    long misses;
    long grantedBytes;
    long filledBytes;
    long evictions;

    Entry(String prefix) {
      this.prefix = prefix;
    }

    void absorb(Entry dropped) {
      hits += dropped.hits;
      misses += dropped.misses;
      grantedBytes += dropped.grantedBytes;
      filledBytes += dropped.filledBytes;
      evictions += dropped.evictions;
    }

    TableStats stats(long cachedBytes) {
      return new TableStats(prefix, hits, misses, cachedBytes, grantedBytes, filledBytes, evictions, error);
    }
  }
}
