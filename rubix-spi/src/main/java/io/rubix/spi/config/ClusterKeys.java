package io.rubix.spi.config;

import java.util.List;

/** Keys of the cache cluster: which nodes there are, who owns which split, what a node caches. */
public final class ClusterKeys {
  public static final ConfigKey MANAGER = new ConfigKey("rubix.cluster.manager", "none",
      "Where the list of cache nodes comes from: none (a single node: everything is local, locality is the wrapped file system's), static (rubix.cluster.nodes), file (rubix.cluster.nodes.file), or the class name of an io.rubix.spi.cluster.ClusterManager with a public constructor taking a Hadoop Configuration.");
  public static final ConfigKey NODES = new ConfigKey("rubix.cluster.nodes", null,
      "The cache nodes of the static cluster manager: comma-separated entries host, host:port, id=host or id=host:port (IPv6 literals in brackets). The id (default: the host) decides which splits a node owns; the host is what engines are told to schedule on. The port defaults to rubix.network.bookkeeper.server.port.");
  public static final ConfigKey NODES_FILE = new ConfigKey("rubix.cluster.nodes.file", null,
      "The file the file cluster manager reads the cache nodes from: entries as in rubix.cluster.nodes, one or more per line, # starts a comment. Re-read when its modification time or size changes; while it is missing or unreadable the last list stays.");
  public static final ConfigKey REFRESH_INTERVAL = new ConfigKey("rubix.cluster.refresh.interval", "5s",
      "How often a cluster manager checks its source for a changed node list (on a background daemon thread; reads never wait for it).");
  public static final ConfigKey PREFERRED_HOSTS = new ConfigKey("rubix.cluster.preferred.hosts", "1",
      "Hosts reported per split (1-3): the owner, then the next nodes in rendezvous order, which engines may schedule on when the owner is busy. Only the owner caches the split.");
  public static final ConfigKey FILESPLIT_SIZE = new ConfigKey("rubix.cache.filesplit.size", "256m",
      "Size of the file splits that are assigned to cache nodes (bytes with suffix, at least the block size). Block locations report one location per split, and a cache block belongs to the split that holds its first byte.");
  public static final ConfigKey ADMISSION = new ConfigKey("rubix.cache.admission", null,
      "Which blocks a node caches: owner-only (blocks of splits this node owns; other blocks are read from the source and counted in rubix_non_owner_source_bytes) or all. Default: owner-only when a cluster manager is configured, all when rubix.cluster.manager=none.");

  public static final ConfigKey LIVENESS_DOWN_DURATION = new ConfigKey("rubix.cluster.liveness.down.duration", "10s",
      "How long a node stays out of the ring after a peer read from it failed (connection refused, timeout, bad checksum, error answer): meanwhile its splits belong to their rendezvous runners-up among the other nodes, for reads, admission and block locations. After that it is probed and rejoins as soon as it answers.");
  public static final ConfigKey LIVENESS_PROBE_INTERVAL = new ConfigKey("rubix.cluster.liveness.probe.interval", "2s",
      "Wait between probes of a down node (a TCP connect to its data-transfer port, on a background daemon thread; reads never wait for it), doubled after every probe that fails, up to rubix.cluster.liveness.probe.max.interval.");
  public static final ConfigKey LIVENESS_PROBE_MAX_INTERVAL = new ConfigKey("rubix.cluster.liveness.probe.max.interval", "30s",
      "Longest wait between probes of a node that stays down (at least rubix.cluster.liveness.probe.interval).");

  private ClusterKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(MANAGER, NODES, NODES_FILE, REFRESH_INTERVAL, PREFERRED_HOSTS, FILESPLIT_SIZE, ADMISSION, LIVENESS_DOWN_DURATION,
        LIVENESS_PROBE_INTERVAL, LIVENESS_PROBE_MAX_INTERVAL);
  }
}
