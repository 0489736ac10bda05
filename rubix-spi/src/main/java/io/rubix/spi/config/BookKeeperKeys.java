package io.rubix.spi.config;

import java.util.List;

/** Keys of the BookKeeper daemon and of clients that talk to it. */
public final class BookKeeperKeys {
  public static final ConfigKey EMBEDDED_MODE = new ConfigKey("rubix.cluster.embedded.mode", "true",
      "true: cache metadata lives in each reading JVM (no daemon needed). false: every JVM of the node asks the node's BookKeeper daemon.");
  public static final ConfigKey IN_PROCESS = new ConfigKey("rubix.bookkeeper.embedded", "false",
      "true: the first caching file system of a JVM starts a whole BookKeeper inside that JVM (metadata with its journal, Thrift port, data-transfer port for peers, metrics) on the configured ports, and every caching file system of the JVM uses it as the node's BookKeeper. For engines with one long-lived JVM per node (Presto and Trino workers). If it cannot start (e.g. the node's BookKeeper daemon holds the port), the file systems use whatever BookKeeper answers on the configured port.");
  public static final ConfigKey SERVER_PORT = new ConfigKey("rubix.network.bookkeeper.server.port", "8899",
      "Thrift port of the BookKeeper daemon (clients connect to it; 0 lets the daemon pick a free port, for tests).");
  public static final ConfigKey BIND_ADDRESS = new ConfigKey("rubix.network.bookkeeper.bind.address", "127.0.0.1",
      "Address the BookKeeper's Thrift port binds to. Loopback by default: only JVMs of this node talk to it, and only those holding the BookKeeper secret. Peers never need it (they use the data-transfer port, which has its own address).");
  public static final ConfigKey SECRET_FILE = new ConfigKey("rubix.bookkeeper.secret.file", null,
      "File holding the node's BookKeeper secret. The daemon creates it (mode 0640, in its group-owned cache directory) if missing; every connection to the Thrift port proves both ends hold it, so only processes that can read it (members of the cache directories' group) can use the BookKeeper. Unset: <first rubix.cache.dirs entry>/bookkeeper/secret.");
  public static final ConfigKey SERVER_HOST = new ConfigKey("rubix.network.bookkeeper.host", "127.0.0.1",
      "Host clients connect to for the BookKeeper daemon.");
  public static final ConfigKey MAX_FRAME_SIZE = new ConfigKey("rubix.network.server.max.frame.size", "16m",
      "Largest Thrift frame the BookKeeper accepts; larger or malformed frames close that connection only.");
  public static final ConfigKey FRAME_TIMEOUT = new ConfigKey("rubix.network.server.frame.timeout", "10s",
      "Longest time the BookKeeper waits for the rest of a Thrift frame once its length arrived; a slower connection is closed, so stuck clients cannot hold the server's read buffers.");
  public static final ConfigKey WORKER_THREADS = new ConfigKey("rubix.network.server.worker.threads", "16",
      "Threads that execute BookKeeper requests (selector threads only do I/O).");
  public static final ConfigKey CONNECT_TIMEOUT = new ConfigKey("rubix.network.client.connect.timeout", "1s",
      "Client connect timeout to the BookKeeper.");
  public static final ConfigKey READ_TIMEOUT = new ConfigKey("rubix.network.client.read.timeout", "5s",
      "Client read timeout for a BookKeeper answer; a slower daemon makes the read go to the source.");
  public static final ConfigKey POOL_SIZE = new ConfigKey("rubix.network.client.pool.size", "16",
      "Most connections one JVM keeps open to the BookKeeper.");
  public static final ConfigKey RETRY_BACKOFF_MAX = new ConfigKey("rubix.network.client.backoff.max", "5s",
      "Longest pause before a client retries a BookKeeper that failed; reads go to the source meanwhile.");
  public static final ConfigKey COUNTERS_INTERVAL = new ConfigKey("rubix.network.client.counters.interval", "10s",
      "How often a reading JVM in daemon mode sends what it counted (hit, miss, source and peer bytes, fallbacks by cause) to the node's BookKeeper, which sums the reports of all JVMs into rubix_engines_* metrics (also sent when the file system closes); 0s: never.");
  public static final ConfigKey METRICS_PORT = new ConfigKey("rubix.bookkeeper.metrics.port", "8897",
      "Port of the BookKeeper's Prometheus text endpoint /metrics (-1 disables, 0 picks a free port).");
  public static final ConfigKey METRICS_BIND_ADDRESS = new ConfigKey("rubix.bookkeeper.metrics.bind.address", "127.0.0.1",
      "Address the Prometheus endpoint binds to (set it to the node's address, or 0.0.0.0, for a scraper on another host). It serves counters and cache directory names, no cached bytes.");
  public static final ConfigKey NODE_ID = new ConfigKey("rubix.cluster.node.id", null,
      "Stable identity of this node in the cache cluster: the id=... of its entry in the cluster node list. Unset: the node is the listed entry whose id or host is any of its host names, canonical host name or interface addresses.");

  public static final ConfigKey TRANSFER_ENABLED = new ConfigKey("rubix.network.transfer.enabled", "true",
      "Peer reads: a reader that does not own a split (rubix.cache.admission=owner-only) first asks the owner node's BookKeeper data-transfer port for the split's cached blocks, and reads the source only when that fails.");
  public static final ConfigKey TRANSFER_SERVER_PORT = new ConfigKey("rubix.network.transfer.server.port", "8898",
      "Data-transfer port of the BookKeeper, serving cached blocks to peer nodes (bound to rubix.network.transfer.bind.address; the same on every node, since readers connect to this port of the owner's host; 0 picks a free port, for tests; -1 disables the server).");
  public static final ConfigKey TRANSFER_BIND_ADDRESS = new ConfigKey("rubix.network.transfer.bind.address", "127.0.0.1",
      "Address the data-transfer port binds to. Loopback by default; set it to the node's address (or 0.0.0.0) for peer reads between nodes, and set rubix.network.transfer.secret with it.");
  public static final ConfigKey TRANSFER_SECRET = new ConfigKey("rubix.network.transfer.secret", null,
      "Shared secret of the data-transfer port: when set, every request carries an HMAC-SHA256 of it and the server refuses requests without a valid one (UNAUTHORIZED), and every answer carries an HMAC-SHA256 bound to its request that readers check before using any byte (an answer without a valid one counts as a failed peer). Set the same value on every node and reader.");
  public static final ConfigKey TRANSFER_TIMEOUT = new ConfigKey("rubix.network.transfer.timeout", "2s",
      "Connect and read timeout of a peer read; a slower peer makes the read go to the source.");
  public static final ConfigKey TRANSFER_SERVER_THREADS = new ConfigKey("rubix.network.transfer.server.threads", "8",
      "Threads of the BookKeeper's data-transfer server: connections beyond them are closed at once (the peer reads the source).");

  private BookKeeperKeys() {}

  public static List<ConfigKey> all() {
    return List.of(EMBEDDED_MODE, IN_PROCESS, SERVER_PORT, BIND_ADDRESS, SECRET_FILE, SERVER_HOST, MAX_FRAME_SIZE, FRAME_TIMEOUT, WORKER_THREADS, CONNECT_TIMEOUT,
        READ_TIMEOUT, POOL_SIZE, RETRY_BACKOFF_MAX, COUNTERS_INTERVAL, METRICS_PORT, METRICS_BIND_ADDRESS, NODE_ID, TRANSFER_ENABLED, TRANSFER_SERVER_PORT, TRANSFER_BIND_ADDRESS, TRANSFER_SECRET, TRANSFER_TIMEOUT,
        TRANSFER_SERVER_THREADS);
  }
}
