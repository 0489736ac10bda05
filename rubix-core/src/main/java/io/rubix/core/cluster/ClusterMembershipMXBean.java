package io.rubix.core.cluster;

import java.util.List;

/**
 * JMX view of one cluster manager in use ({@code io.rubix:type=ClusterMembership}): the nodes it
 * knows, this node, and how its refreshes are going.
 */
public interface ClusterMembershipMXBean {
  /** {@code rubix.cluster.manager} and its source (a URL, a file; never a credential). */
  String getManager();

  /** The live nodes, as {@code id=host:port}. */
  List<String> getNodes();

  int getNodeCount();

  /** This node's id, or {@code none} when this node is not listed. */
  String getLocalNode();

  /** The generation of the current view: it grows with every change. */
  long getViewVersion();

  /** When the source last answered with a usable list (ISO-8601), or {@code never}; a fixed list: when it was built. */
  String getLastSuccessfulRefresh();

  /** {@link #getLastSuccessfulRefresh()} in milliseconds since the epoch, 0 for never. */
  long getLastSuccessfulRefreshMillis();

  /** Failed refreshes since the last successful one. */
  int getConsecutiveFailures();

  /** What went wrong in the latest failed refresh of the current streak, or an empty string. */
  String getLastError();

  /**
   * Listed nodes currently considered down (unreachable peers), as {@code id}; empty until a liveness
   * tracker is attached through {@link ClusterMembershipBean}'s down-nodes supplier.
   */
  List<String> getDownNodes();
}
