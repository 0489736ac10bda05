package io.rubix.spi.cluster;

import static java.util.Objects.requireNonNull;

/**
 * One node of the cache cluster.
 *
 * @param id the node's stable identity; splits are assigned to ids, so a node keeps its splits across
 *     restarts and address changes as long as its id stays. Normalised with {@link NodeNames#normalize}.
 * @param host the host name or IP address engines know the node by: reported as the host of the
 *     splits it owns, so it should be what the engine's scheduler calls its workers. Normalised.
 * @param port the node's RubiX port, reported in {@code host:port} block location names (1-65535)
 */
public record ClusterNode(String id, String host, int port) {
  public ClusterNode {
    requireNonNull(id, "id is null");
    requireNonNull(host, "host is null");
    id = NodeNames.normalize(id);
    host = NodeNames.normalize(host);
    if (id.isEmpty()) {
      throw new IllegalArgumentException("Node id is empty (host " + host + ")");
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("Host of node " + id + " is empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("Port " + port + " of node " + id + " is outside 1-65535");
    }
  }

  /** A node whose id is its host. */
  public static ClusterNode of(String host, int port) {
    return new ClusterNode(host, host, port);
  }

  /** {@code host:port}, the form of Hadoop block location names ({@code [v6]:port} for IPv6 literals). */
  public String name() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
