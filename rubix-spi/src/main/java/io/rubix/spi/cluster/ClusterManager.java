package io.rubix.spi.cluster;

import java.io.Closeable;

/**
 * The live nodes of the cache cluster, from whatever source knows them (a static list, a file, a
 * resource manager, a service registry).
 *
 * <p>Contract, for every implementation:
 * <ul>
 *   <li><b>Never blocks a read.</b> {@link #view()} returns the last known view at once: no I/O, no
 *       lock held across I/O. Learning the list (reading a file, asking a service, DNS) happens on
 *       the manager's own daemon thread or when it is built.
 *   <li><b>Refreshes within seconds.</b> A change at the source is visible in {@link #view()} within
 *       {@code rubix.cluster.refresh.interval} (default 5s) plus the time to fetch it.
 *   <li><b>Keeps the last known list when its source is down.</b> A failed or unparseable refresh is
 *       logged and leaves the current view as it is; nodes are never dropped because the source is
 *       unreachable. A manager that never learned a list returns {@link ClusterView#EMPTY}, and
 *       callers then behave as a single node.
 *   <li><b>Recognises this node.</b> {@link ClusterView#local()} is found with a {@link LocalIdentity}
 *       (the configured {@code rubix.cluster.node.id}, else every name and address of this machine),
 *       so it does not matter whether the list says a host name, an FQDN or an IP.
 *   <li>Thread-safe; listeners are called on the manager's thread, in the order of the views.
 * </ul>
 *
 * <p>Implementations selected by class name ({@code rubix.cluster.manager}) need a public constructor
 * taking a Hadoop {@code Configuration}.
 */
public interface ClusterManager extends Closeable {
  /** The current view; never null, never blocks. */
  ClusterView view();

  /** Calls {@code listener} after every later change of {@link #view()}. */
  void addListener(ClusterListener listener);

  /** Stops refreshing; {@link #view()} keeps answering the last view. Idempotent. */
  @Override
  void close();
}
