package io.rubix.spi.cluster;

/** Told of each new {@link ClusterView} a {@link ClusterManager} publishes. */
@FunctionalInterface
public interface ClusterListener {
  /**
   * Called on the manager's own thread after {@code view} became current; must return quickly and
   * not throw (a thrown exception is logged and ignored).
   */
  void clusterChanged(ClusterView view);
}
