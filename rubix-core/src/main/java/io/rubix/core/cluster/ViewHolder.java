package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.cluster.ClusterListener;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import io.rubix.spi.cluster.LocalIdentity;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The current view of a cluster manager and its listeners: readers get the view with one volatile read. */
final class ViewHolder {
  private static final Logger LOG = LoggerFactory.getLogger(ViewHolder.class);

  private final LocalIdentity identity;
  private final String source;
  private final List<ClusterListener> listeners = new CopyOnWriteArrayList<>();
  private volatile ClusterView view = ClusterView.EMPTY;

  ViewHolder(LocalIdentity identity, String source) {
    this.identity = requireNonNull(identity, "identity is null");
    this.source = requireNonNull(source, "source is null");
  }

  ClusterView view() {
    return view;
  }

  void addListener(ClusterListener listener) {
    listeners.add(requireNonNull(listener, "listener is null"));
  }

  /** Makes {@code nodes} current unless they are the current nodes; true when the view changed. Called by one thread at a time. */
  synchronized boolean publish(List<ClusterNode> nodes) {
    ClusterView current = view;
    ClusterView next = ClusterView.of(nodes, identity, current.generation() + 1);
    if (next.nodes().equals(current.nodes()) && next.local().equals(current.local())) {
      return false;
    }
    if (next.local().isEmpty() && !next.nodes().isEmpty()) {
      LOG.warn("This node ({}) is not in the {} cluster nodes of {}: it owns no splits and caches nothing of its own", identity,
          next.nodes().size(), source);
    } else {
      LOG.info("Cache cluster from {}: {} nodes, this node is {}", source, next.nodes().size(), next.local().map(ClusterNode::id).orElse("-"));
    }
    view = next;
    for (ClusterListener listener : listeners) {
      try {
        listener.clusterChanged(next);
      } catch (RuntimeException e) {
        LOG.warn("Cluster listener {} failed", listener, e);
      }
    }
    return true;
  }
}
