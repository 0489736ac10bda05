package io.rubix.spark.sql;

import io.rubix.spi.config.ClusterKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which executors run on which cache node, where the two are known by different addresses: on
 * Kubernetes an executor's host is its pod's address while the node's BookKeeper, which owns splits and
 * which block locations name, has the node's. The driver side of {@code RubixPlugin} publishes it as the
 * Hadoop key {@value #KEY} ({@code node=executor executor,node=executor}); a scan packed by owner
 * then prefers the executors of each task's node.
 */
public final class ExecutorHosts {
  /** Hadoop key of the SparkContext's configuration holding the map; unset where they coincide. */
  public static final String KEY = ClusterKeys.EXECUTOR_HOSTS.name();

  private ExecutorHosts() {}

  /** The map as {@value #KEY}'s value; null when every node's executors have the node's address only. */
  public static String format(Map<String, ? extends Set<String>> executorsByNode) {
    boolean differ = executorsByNode.entrySet().stream().anyMatch(e -> !e.getValue().equals(Set.of(e.getKey())));
    if (!differ) {
      return null;
    }
    List<String> entries = new ArrayList<>();
    new TreeMap<>(executorsByNode).forEach((node, hosts) -> entries.add(node + "=" + String.join(" ", new TreeSet<>(hosts))));
    return String.join(",", entries);
  }

  /** {@value #KEY}'s value as a map from node to its executors' hosts; empty for null or blank. */
  public static Map<String, List<String>> parse(String value) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    if (value == null || value.isBlank()) {
      return map;
    }
    for (String entry : value.split(",")) {
      int eq = entry.indexOf('=');
      if (eq > 0) {
        map.put(entry.substring(0, eq).trim(), List.of(entry.substring(eq + 1).trim().split("\\s+")));
      }
    }
    return map;
  }
}
