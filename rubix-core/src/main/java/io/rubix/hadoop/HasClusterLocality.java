package io.rubix.hadoop;

import io.rubix.core.cluster.ClusterLocality;

/**
 * A caching file system that knows the cache cluster: who owns which split and which nodes are down
 * ({@link ClusterLocality#liveness()}), for monitoring and tests.
 */
public interface HasClusterLocality {
  /** The split ownership of this file system, or null with {@code rubix.cluster.manager=none} or caching disabled. */
  ClusterLocality clusterLocality();
}
