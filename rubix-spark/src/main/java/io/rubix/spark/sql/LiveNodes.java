package io.rubix.spark.sql;

import static java.util.Objects.requireNonNull;

import io.rubix.core.cluster.NodeList;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.config.ClusterKeys;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;

/**
 * The hosts of the cache nodes the driver knows now: {@code rubix.cluster.nodes} of the SparkContext's
 * Hadoop configuration, which the driver side of {@code RubixPlugin} keeps to the executors' nodes.
 * Asked once per task placed, so the list is parsed again only when it changed.
 */
final class LiveNodes {
  private final Configuration conf;
  private String parsedList;
  private Set<String> parsedHosts = Set.of();

  LiveNodes(Configuration conf) {
    this.conf = requireNonNull(conf, "conf is null");
  }

  /** The hosts listed now, or empty when none are (no plugin: then nothing is dropped) or the list does not parse. */
  synchronized Set<String> current() {
    String list = conf.get(ClusterKeys.NODES.name());
    if (!Objects.equals(list, parsedList)) {
      parsedList = list;
      parsedHosts = parse(list);
    }
    return parsedHosts;
  }

  private static Set<String> parse(String list) {
    if (list == null || list.isBlank()) {
      return Set.of();
    }
    try {
      // the port is not used here (any valid one will do)
      return NodeList.parse(list, 1, ClusterKeys.NODES.name()).stream().map(ClusterNode::host).collect(Collectors.toUnmodifiableSet());
    } catch (IllegalArgumentException e) {
      return Set.of();
    }
  }
}
