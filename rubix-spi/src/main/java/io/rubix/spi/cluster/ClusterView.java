package io.rubix.spi.cluster;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One consistent snapshot of the cluster: its live nodes and which of them is this node.
 *
 * @param nodes the live nodes, sorted by id, ids unique; empty when no list was ever learned
 * @param local the entry of {@code nodes} that is this node, or empty when this node is not listed
 *     (a coordinator or client that reads but caches nothing of its own)
 * @param generation increases with every change a manager publishes
 */
public record ClusterView(List<ClusterNode> nodes, Optional<ClusterNode> local, long generation) {
  public static final ClusterView EMPTY = new ClusterView(List.of(), Optional.empty(), 0);

  public ClusterView {
    requireNonNull(nodes, "nodes is null");
    requireNonNull(local, "local is null");
    List<ClusterNode> sorted = new ArrayList<>(nodes);
    sorted.sort(Comparator.comparing(ClusterNode::id));
    Set<String> ids = new HashSet<>();
    for (ClusterNode node : sorted) {
      if (!ids.add(node.id())) {
        throw new IllegalArgumentException("Node id " + node.id() + " is listed twice: " + nodes);
      }
    }
    nodes = List.copyOf(sorted);
    if (local.isPresent() && !nodes.contains(local.get())) {
      throw new IllegalArgumentException("Local node " + local.get() + " is not one of " + nodes);
    }
  }

  /** The view of {@code nodes} as seen by {@code identity}. */
  public static ClusterView of(List<ClusterNode> nodes, LocalIdentity identity, long generation) {
    return new ClusterView(nodes, identity.find(nodes), generation);
  }

  /** True when no node is known: callers then behave as a single node (everything is local). */
  public boolean isEmpty() {
    return nodes.isEmpty();
  }
}
