package io.rubix.spark.sql;

import io.rubix.core.cluster.NodeList;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.config.ClusterKeys;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;

/**
 * The hosts of the cache nodes the driver knows now: {@code rubix.cluster.nodes} of the SparkContext's
 * Hadoop configuration, which the driver side of {@code RubixPlugin} keeps to the executors' nodes.
 */
final class LiveNodes {
  private LiveNodes() {}

  /** The hosts listed, or empty when none are (no plugin: then nothing is dropped) or the list does not parse. */
  static Set<String> of(Configuration conf) {
    String list = conf.get(ClusterKeys.NODES.name());
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
