package io.rubix.core.cluster;

import io.rubix.spi.cluster.ClusterNode;
import java.io.IOException;

/** Checks whether a node answers; called on the liveness tracker's background thread, never on a read. */
@FunctionalInterface
interface NodeProbe {
  /** Returns when {@code node} answers; throws, saying why, when it does not. */
  void check(ClusterNode node) throws IOException;
}
