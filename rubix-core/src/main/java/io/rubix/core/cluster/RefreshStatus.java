package io.rubix.core.cluster;

import java.time.Instant;
import java.util.Optional;

/**
 * How a cluster manager's refreshes are going: an optional ability of a {@link
 * io.rubix.spi.cluster.ClusterManager}, shown by its {@link ClusterMembershipMXBean}.
 */
public interface RefreshStatus {
  /** When the source last answered with a usable list; empty when it never did. */
  Optional<Instant> lastSuccessfulRefresh();

  /** Failed refreshes since the last successful one. */
  int consecutiveFailures();

  /** What went wrong in the latest failed refresh of the current streak; empty after a success. Never holds secrets. */
  Optional<String> lastError();
}
