package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.cluster.ClusterNode;
import java.util.List;

/**
 * What a {@link NodeLiveness} knows at one moment, for monitoring (JMX, logs, CLI).
 *
 * @param nodes the nodes of the current view, sorted by id
 * @param down the nodes of the view that are down now, sorted by id
 * @param downTransitions how often a node went down since the tracker started
 * @param upTransitions how often a down node answered again and rejoined
 * @param probes probes of down nodes made
 * @param failedProbes probes that found the node still down
 * @param nodesAdded nodes that joined the view after the tracker started
 * @param nodesRemoved nodes that left the view after the tracker started
 * @param liveChecks probes of live nodes made by the periodic check ({@code rubix.cluster.liveness.check.interval})
 */
public record LivenessSnapshot(List<ClusterNode> nodes, List<ClusterNode> down, long downTransitions, long upTransitions, long probes,
    long failedProbes, long nodesAdded, long nodesRemoved, long liveChecks) {
  public LivenessSnapshot {
    nodes = List.copyOf(requireNonNull(nodes, "nodes is null"));
    down = List.copyOf(requireNonNull(down, "down is null"));
  }

  /** The nodes of the view that are not down. */
  public List<ClusterNode> live() {
    return nodes.stream().filter(node -> !down.contains(node)).toList();
  }
}
