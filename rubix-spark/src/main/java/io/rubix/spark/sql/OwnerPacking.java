package io.rubix.spark.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Packs the pieces of a file scan into tasks the way Spark does (largest first, a task closes when
 * the next piece would take it past {@code maxSplitBytes}, each piece also costing
 * {@code openCostInBytes}), but only pieces with the same first host go together. Spark packs by size
 * alone, so a task of several small files holds files of two or three owners, and wherever it runs
 * most of its bytes come from a peer; packed per owner, a task run on its preferred host reads all its
 * bytes from that node's cache. Pieces without a host are packed among themselves.
 *
 * <p>Task sizes stay within Spark's bound; the count grows by at most one partly filled task per host.
 */
final class OwnerPacking {
  private OwnerPacking() {}

  /**
   * The pieces grouped into tasks, in host order of first appearance; {@code host} gives a piece's
   * preferred host or "" for none.
   */
  static <T> List<List<T>> pack(List<T> pieces, Function<T, String> host, ToLongFunction<T> length, long maxSplitBytes,
      long openCostInBytes) {
    Map<String, List<T>> byHost = new LinkedHashMap<>();
    for (T piece : pieces) {
      byHost.computeIfAbsent(host.apply(piece), h -> new ArrayList<>()).add(piece);
    }
    List<List<T>> tasks = new ArrayList<>();
    Comparator<T> largestFirst = Comparator.comparingLong(length).reversed();
    for (List<T> group : byHost.values()) {
      group.sort(largestFirst);
      List<T> current = new ArrayList<>();
      long size = 0;
      for (T piece : group) {
        if (!current.isEmpty() && size + length.applyAsLong(piece) > maxSplitBytes) {
          tasks.add(current);
          current = new ArrayList<>();
          size = 0;
        }
        current.add(piece);
        size += length.applyAsLong(piece) + openCostInBytes;
      }
      if (!current.isEmpty()) {
        tasks.add(current);
      }
    }
    return tasks;
  }

  /** The number of distinct first hosts among {@code pieces}. */
  static <T> long hosts(List<T> pieces, Function<T, String> host) {
    return pieces.stream().map(host).distinct().count();
  }
}
