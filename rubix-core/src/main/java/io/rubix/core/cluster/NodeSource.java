package io.rubix.core.cluster;

import java.io.IOException;
import java.util.List;

/**
 * Where a {@link PollingClusterManager} learns the node list: one blocking call per refresh, made on
 * the manager's own thread only.
 */
public interface NodeSource {
  /**
   * The host names or IP literals of the live nodes, as the source lists them (duplicates allowed).
   *
   * @throws IOException when the source cannot be reached, refuses, answers too slowly or answers with
   *     something other than a node list; the message must not contain secrets (it is logged and shown
   *     over JMX)
   * @throws InterruptedException when the manager is closed during the call
   */
  List<String> fetchHosts() throws IOException, InterruptedException;

  /** What this source is, for logs and JMX (a URL, never a credential). */
  String description();
}
