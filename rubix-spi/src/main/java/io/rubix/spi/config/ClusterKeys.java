package io.rubix.spi.config;

import java.util.List;

/** Keys of the cache cluster: which nodes there are, who owns which split, what a node caches. */
public final class ClusterKeys {
  public static final ConfigKey MANAGER = new ConfigKey("rubix.cluster.manager", "none",
      "Where the list of cache nodes comes from: none (a single node: everything is local, locality is the wrapped file system's), static (rubix.cluster.nodes), file (rubix.cluster.nodes.file), presto or trino (the coordinator's /v1/node, rubix.cluster.presto.*), yarn (the ResourceManager's RUNNING nodes, rubix.cluster.yarn.*), or the class name of an io.rubix.spi.cluster.ClusterManager with a public constructor taking a Hadoop Configuration.");
  public static final ConfigKey NODES = new ConfigKey("rubix.cluster.nodes", null,
      "The cache nodes of the static cluster manager: comma-separated entries host, host:port, id=host or id=host:port (IPv6 literals in brackets). The id (default: the host) decides which splits a node owns; the host is what engines are told to schedule on. The port defaults to rubix.network.bookkeeper.server.port.");
  public static final ConfigKey EXECUTOR_HOSTS = new ConfigKey("rubix.spark.executor.hosts", null,
      "Which executors run on which cache node, where an executor's host is not its node's (Spark on Kubernetes: the pod's address): node=executor executor,node=executor. Set by RubixPlugin's driver side in the SparkContext's Hadoop configuration (not by users); file scans packed by owner then prefer the executors on their owner's node.");
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

  // liveness of peers
  public static final ConfigKey LIVENESS_DOWN_DURATION = new ConfigKey("rubix.cluster.liveness.down.duration", "10s",
      "How long a node stays out of the ring after a peer read from it failed (connection refused, timeout, bad checksum, error answer): meanwhile its splits belong to their rendezvous runners-up among the other nodes, for reads, admission and block locations. After that it is probed and rejoins as soon as it answers.");
  public static final ConfigKey LIVENESS_PROBE_INTERVAL = new ConfigKey("rubix.cluster.liveness.probe.interval", "2s",
      "Wait between probes of a down node (a TCP connect to its data-transfer port, on a background daemon thread; reads never wait for it), doubled after every probe that fails, up to rubix.cluster.liveness.probe.max.interval.");
  public static final ConfigKey LIVENESS_CHECK_INTERVAL = new ConfigKey("rubix.cluster.liveness.check.interval", "0s",
      "How often every live node is checked with the same probe even though no read failed (0s: never). Readers learn a node is down from their own failed peer reads; JVMs that only plan work (a Spark driver, a Presto/Trino coordinator with the static or file manager) read nothing from peers, so set this there (e.g. 30s) for the block locations they report to leave a dead node.");
  public static final ConfigKey LIVENESS_PROBE_MAX_INTERVAL = new ConfigKey("rubix.cluster.liveness.probe.max.interval", "30s",
      "Longest wait between probes of a node that stays down (at least rubix.cluster.liveness.probe.interval).");

  // REST cluster managers (presto, trino, yarn)
  public static final ConfigKey REST_CONNECT_TIMEOUT = new ConfigKey("rubix.cluster.rest.connect.timeout", "2s",
      "Connect timeout of the presto, trino and yarn cluster managers' HTTP requests.");
  public static final ConfigKey REST_REQUEST_TIMEOUT = new ConfigKey("rubix.cluster.rest.request.timeout", "5s",
      "Longest wait for one whole answer of the coordinator or ResourceManager; a slower answer counts as a failed refresh (the last list stays).");
  public static final ConfigKey REST_INITIAL_WAIT = new ConfigKey("rubix.cluster.rest.initial.wait", "2s",
      "Longest time creating a file system waits for the first node list of a presto, trino or yarn cluster manager (0s: not at all); without a list it behaves as a single node until the first answer arrives.");
  public static final ConfigKey REST_BACKOFF_MAX = new ConfigKey("rubix.cluster.rest.backoff.max", "60s",
      "Longest pause between refreshes while the source keeps failing: the pause doubles from rubix.cluster.refresh.interval with each failure in a row, up to this.");
  public static final ConfigKey REST_TRUSTSTORE_PATH = new ConfigKey("rubix.cluster.rest.truststore.path", null,
      "Trust store (file) for https:// coordinator or ResourceManager URLs. Unset: the JVM's default trust store.");
  public static final ConfigKey REST_TRUSTSTORE_PASSWORD = new ConfigKey("rubix.cluster.rest.truststore.password", null,
      "Password of rubix.cluster.rest.truststore.path, if it has one (read through Hadoop's credential providers, then the configuration).");
  public static final ConfigKey REST_TRUSTSTORE_TYPE = new ConfigKey("rubix.cluster.rest.truststore.type", null,
      "Type of rubix.cluster.rest.truststore.path (PKCS12, JKS). Unset: the JVM's default key store type.");
  public static final ConfigKey PRESTO_COORDINATOR_URL = new ConfigKey("rubix.cluster.presto.coordinator.url", null,
      "Base URL of the Presto or Trino coordinator (http://host:8080 or https://host:8443; no path, no user info), required by the presto and trino cluster managers. The live nodes are its /v1/node minus /v1/node/failed; the node host is the host of each entry's uri.");
  public static final ConfigKey PRESTO_USER = new ConfigKey("rubix.cluster.presto.user", "rubix",
      "User sent to the coordinator (X-Presto-User for presto, X-Trino-User for trino, and the basic-auth user with rubix.cluster.presto.password). Trino only answers /v1/node to a user with system information access.");
  public static final ConfigKey PRESTO_PASSWORD = new ConfigKey("rubix.cluster.presto.password", null,
      "Password for HTTP basic authentication as rubix.cluster.presto.user (read through Hadoop's credential providers, then the configuration; never logged). Use with an https:// URL: coordinators refuse passwords over http.");
  public static final ConfigKey PRESTO_TOKEN = new ConfigKey("rubix.cluster.presto.token", null,
      "Bearer token (JWT, OAuth2) sent as Authorization: Bearer (read through Hadoop's credential providers, then the configuration; never logged). Not together with rubix.cluster.presto.password or rubix.cluster.presto.token.file.");
  public static final ConfigKey PRESTO_TOKEN_FILE = new ConfigKey("rubix.cluster.presto.token.file", null,
      "Absolute path of a file holding the bearer token (surrounding white space ignored); re-read when its modification time or size changes, so a token can be rotated without a restart.");
  public static final ConfigKey PRESTO_INCLUDE_COORDINATOR = new ConfigKey("rubix.cluster.presto.include-coordinator", "true",
      "Whether the coordinator is also a cache node: set it to the engine's node-scheduler.include-coordinator (true by default in Presto and Trino). The coordinator never lists itself in /v1/node, so it is added by the host of rubix.cluster.presto.coordinator.url, which must then be the name workers know it by.");
  public static final ConfigKey YARN_RESOURCEMANAGER_URL = new ConfigKey("rubix.cluster.yarn.resourcemanager.url", null,
      "Comma-separated base URLs of the YARN ResourceManager web services (http://rm-1:8088,http://rm-2:8088), tried in order until one answers as the active RM. Unset: from Hadoop's yarn.resourcemanager.webapp.address (or .https.address with yarn.http.policy=HTTPS_ONLY), or with yarn.resourcemanager.ha.enabled=true the address of each id of yarn.resourcemanager.ha.rm-ids (.address.<id>), else yarn.resourcemanager.hostname(.<id>) with port 8088 (8090).");
  public static final ConfigKey YARN_USER = new ConfigKey("rubix.cluster.yarn.user", null,
      "User sent as ?user.name= (Hadoop simple authentication) on ResourceManager requests. Unset: the JVM's user.name. Kerberos (SPNEGO) is not supported: use the file cluster manager on a Kerberized cluster.");

  private ClusterKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(MANAGER, NODES, EXECUTOR_HOSTS, NODES_FILE, REFRESH_INTERVAL, PREFERRED_HOSTS, FILESPLIT_SIZE, ADMISSION,
        LIVENESS_DOWN_DURATION, LIVENESS_PROBE_INTERVAL, LIVENESS_PROBE_MAX_INTERVAL, LIVENESS_CHECK_INTERVAL,
        REST_CONNECT_TIMEOUT, REST_REQUEST_TIMEOUT, REST_INITIAL_WAIT, REST_BACKOFF_MAX, REST_TRUSTSTORE_PATH, REST_TRUSTSTORE_PASSWORD, REST_TRUSTSTORE_TYPE,
        PRESTO_COORDINATOR_URL, PRESTO_USER, PRESTO_PASSWORD, PRESTO_TOKEN, PRESTO_TOKEN_FILE, PRESTO_INCLUDE_COORDINATOR,
        YARN_RESOURCEMANAGER_URL, YARN_USER);
  }
}
