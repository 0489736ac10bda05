package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Per-table counters, at most {@code rubix.cache.stats.prefix.entries} prefixes (most accessed first)
 * plus {@code other} for the rest, and the working-set estimate.
 */
public record CacheInsightReport(List<TableStats> tables, TableStats other, WorkingSetEstimate workingSet) {
  public CacheInsightReport {
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    requireNonNull(other, "other is null");
    requireNonNull(workingSet, "workingSet is null");
  }
}
