package io.rubix.benchmarks;

import io.rubix.spi.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Cache nodes named as EC2 workers are: the id is the host name ({@code ip-10-0-39-15.ec2.internal}),
 * as with the YARN manager and a node list that gives hosts only. Splits are owned by ids, so only the
 * names matter, not the addresses.
 */
final class SimulatedNodes {
  private static final int PORT = 8899;

  private SimulatedNodes() {}

  /** {@code n} nodes, the same ones for the same {@code n}; the first {@code m} of them for any {@code m < n}. */
  static List<ClusterNode> list(int n) {
    if (n < 1 || n > 65_536) {
      throw new IllegalArgumentException("Node count must be 1-65536: " + n);
    }
    List<ClusterNode> nodes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      nodes.add(ClusterNode.of("ip-10-0-" + (i >> 8) + "-" + (i & 255) + ".ec2.internal", PORT));
    }
    return nodes;
  }

  /** The {@code k}-th node that joins: never one of {@link #list}'s. */
  static ClusterNode newcomer(int k) {
    return ClusterNode.of("ip-10-1-" + (k >> 8) + "-" + (k & 255) + ".ec2.internal", PORT);
  }
}
