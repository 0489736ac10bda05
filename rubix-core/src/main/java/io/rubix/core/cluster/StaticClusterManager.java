package io.rubix.core.cluster;

import io.rubix.spi.cluster.ClusterListener;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import io.rubix.spi.cluster.LocalIdentity;
import java.util.List;

/** A fixed node list ({@code rubix.cluster.nodes}): it never changes, so listeners are never called. */
public final class StaticClusterManager implements ClusterManager {
  private final ViewHolder holder;

  public StaticClusterManager(List<ClusterNode> nodes, LocalIdentity identity) {
    this.holder = new ViewHolder(identity, "rubix.cluster.nodes");
    holder.publish(nodes);
  }

  @Override
  public ClusterView view() {
    return holder.view();
  }

  @Override
  public void addListener(ClusterListener listener) {
    holder.addListener(listener);
  }

  @Override
  public void close() {}
}
