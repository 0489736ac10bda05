package io.rubix.bookkeeper;

import static java.util.Objects.requireNonNull;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.ClusterKeys;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;

/**
 * N BookKeepers forming a static cluster, for the peer and failover tests. Node {@code i} (1-based)
 * is called {@code node<i>}, binds {@link #host(int) 127.0.0.i} and caches in {@code <root>/node<i>}.
 * Nodes run in this JVM ({@link Builder#startInProcess()}) or each in its own
 * ({@link Builder#startChildJvms()}, for kill -9 and restart).
 *
 * <p>Ports come from the servers: every Thrift and metrics port is bound as 0 and asked from the
 * started daemon. The data-transfer port is one for the whole cluster, because a client knows one
 * transfer port for all nodes: node 1 binds it as 0, and the others bind the port node 1 got (on
 * their own addresses) while node 1 holds it.
 *
 * <p>{@link #clientConf} makes a configuration that reads as one node: through that node's daemon,
 * with the static list of all nodes, one block per split (so every block has its own owner) and no
 * read-ahead.
 */
final class TestCluster implements AutoCloseable {
  /** How long {@link #awaitCached} waits for a block in flight. */
  static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(45);

  private final Path root;
  private final int size;
  private final int blockSize;
  private final Map<String, String> daemonSettings;
  private final IntFunction<Map<String, String>> nodeSettings;
  private final Map<String, String> clientSettings;
  private final boolean childJvms;
  /** By node number; index 0 unused. A stopped node's entry is null. */
  private final BookKeeper[] bookKeepers;
  private final BookKeeperProcess[] processes;
  private final int[] ports;
  private int transferPort;

  private TestCluster(Builder builder, boolean childJvms) {
    this.root = builder.root;
    this.size = builder.size;
    this.blockSize = builder.blockSize;
    this.daemonSettings = Map.copyOf(builder.daemonSettings);
    this.nodeSettings = builder.nodeSettings;
    this.clientSettings = new LinkedHashMap<>(builder.clientSettings);
    this.childJvms = childJvms;
    this.bookKeepers = new BookKeeper[size + 1];
    this.processes = new BookKeeperProcess[size + 1];
    this.ports = new int[size + 1];
  }

  /** A cluster of {@code size} nodes caching under {@code root}. */
  static Builder builder(Path root, int size) {
    return new Builder(root, size);
  }

  /** The address node {@code node} binds: 127.0.0.{@code node}. */
  static String host(int node) {
    return "127.0.0." + node;
  }

  static String nodeId(int node) {
    return "node" + node;
  }

  /** Skips the calling test where 127.0.0.2 .. 127.0.0.{@code size} cannot be bound (only Linux routes all of 127.0.0.0/8 to loopback). */
  static void assumeBindable(int size) {
    for (int node = 2; node <= size; node++) {
      boolean bindable;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host(node)))) {
        bindable = socket.getLocalPort() > 0;
      } catch (IOException e) {
        bindable = false;
      }
      Assumptions.assumeTrue(bindable, "this machine cannot bind " + host(node)
          + " (Linux routes all of 127.0.0.0/8 to loopback; others need an alias such as `ifconfig lo0 alias " + host(node) + "`)");
    }
  }

  Path cacheDir(int node) {
    return root.resolve(nodeId(node));
  }

  /** Node {@code node}'s Thrift port. */
  int port(int node) {
    return ports[checked(node)];
  }

  /** The data-transfer port every node binds on its own address. */
  int transferPort() {
    return transferPort;
  }

  /** The {@code rubix.cluster.nodes} value: {@code node<i>=<host>:<Thrift port>} for every node. */
  String nodeList() {
    List<String> entries = new ArrayList<>();
    for (int node = 1; node <= size; node++) {
      entries.add(nodeId(node) + "=" + host(node) + ":" + ports[node]);
    }
    return String.join(",", entries);
  }

  /** Node {@code node}'s BookKeeper, in a cluster started in this JVM; null once stopped. */
  BookKeeper bookKeeper(int node) {
    if (childJvms) {
      throw new IllegalStateException("The nodes run in child JVMs");
    }
    return bookKeepers[checked(node)];
  }

  /** Node {@code node}'s daemon process, in a cluster started in child JVMs. */
  BookKeeperProcess process(int node) {
    if (!childJvms) {
      throw new IllegalStateException("The nodes run in this JVM");
    }
    return processes[checked(node)];
  }

  /** Closes node {@code node}'s BookKeeper, in a cluster started in this JVM. */
  void stop(int node) {
    bookKeeper(node).close();
    bookKeepers[node] = null;
  }

  /** kill -9 of node {@code node}'s JVM. */
  void kill(int node) throws InterruptedException {
    process(node).kill();
  }

  /** Starts node {@code node}'s JVM again (after {@link #kill}) on its cache directory, Thrift port and the cluster's transfer port. */
  void restart(int node) throws IOException, InterruptedException {
    process(node).close();
    processes[node] = startProcess(node, ports[node]);
  }

  /**
   * {@code base} with the settings that make it read as node {@code node}, then the cluster's client
   * settings ({@link Builder#client}); returns {@code base}, for the caller to add its own.
   */
  Configuration clientConf(int node, Configuration base) {
    checked(node);
    Configuration conf = requireNonNull(base, "base is null");
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    BookKeeperTestSupport.useDaemon(conf, cacheDir(node), ports[node]);
    conf.set(BookKeeperKeys.SERVER_HOST.name(), host(node));
    conf.set(CacheKeys.BLOCK_SIZE.name(), Integer.toString(blockSize));
    conf.set(ClusterKeys.FILESPLIT_SIZE.name(), Integer.toString(blockSize));
    conf.set(CacheKeys.READAHEAD_MAX.name(), "0");
    conf.set(CacheKeys.JMX_ENABLED.name(), "false");
    conf.set(ClusterKeys.MANAGER.name(), "static");
    conf.set(ClusterKeys.NODES.name(), nodeList());
    conf.set(BookKeeperKeys.NODE_ID.name(), nodeId(node));
    conf.set(BookKeeperKeys.TRANSFER_SERVER_PORT.name(), Integer.toString(transferPort));
    clientSettings.forEach(conf::set);
    return conf;
  }

  /** A metadata client of node {@code node}'s daemon; the caller closes it. */
  BookKeeperClient client(int node) {
    Configuration conf = new Configuration(false);
    conf.set(CacheKeys.DIRS.name(), cacheDir(node).toString());
    conf.set(BookKeeperKeys.EMBEDDED_MODE.name(), "false");
    conf.set(BookKeeperKeys.SERVER_HOST.name(), host(node));
    conf.set(BookKeeperKeys.SERVER_PORT.name(), Integer.toString(port(node)));
    return new BookKeeperClient(ClientConfig.from(conf), blockSize, System::nanoTime);
  }

  /**
   * Waits until block {@code block} of {@code version} is no longer in flight on node {@code node}
   * (the daemon answers when it settles, up to {@link #AWAIT_TIMEOUT}), and fails unless it is cached.
   */
  void awaitCached(int node, ObjectVersion version, int block) throws IOException, InterruptedException {
    try (BookKeeperClient client = client(node)) {
      BlockState state = client.awaitInFlight(version, block, block + 1, AWAIT_TIMEOUT.toMillis()).state(block);
      if (state != BlockState.CACHED) {
        throw new AssertionError("Block " + block + " of " + version + " is " + state + " on " + nodeId(node) + ", not CACHED");
      }
    }
  }

  @Override
  public void close() {
    for (int node = size; node >= 1; node--) {
      if (bookKeepers[node] != null) {
        bookKeepers[node].close();
        bookKeepers[node] = null;
      }
      if (processes[node] != null) {
        processes[node].close();
        processes[node] = null;
      }
    }
  }

  private int checked(int node) {
    if (node < 1 || node > size) {
      throw new IllegalArgumentException("No node " + node + " in a cluster of " + size);
    }
    return node;
  }

  /** Daemon settings of node {@code node} on Thrift port {@code port} (0: any). */
  private Map<String, String> daemonSettings(int node, int port) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put(CacheKeys.DIRS.name(), cacheDir(node).toString());
    settings.put(CacheKeys.BLOCK_SIZE.name(), Integer.toString(blockSize));
    settings.put(BookKeeperKeys.NODE_ID.name(), nodeId(node));
    settings.put(BookKeeperKeys.BIND_ADDRESS.name(), host(node));
    settings.put(BookKeeperKeys.SERVER_PORT.name(), Integer.toString(port));
    settings.put(BookKeeperKeys.METRICS_PORT.name(), "0");
    settings.put(BookKeeperKeys.TRANSFER_BIND_ADDRESS.name(), host(node));
    settings.put(BookKeeperKeys.TRANSFER_SERVER_PORT.name(), Integer.toString(transferPort));
    settings.putAll(daemonSettings);
    settings.putAll(nodeSettings.apply(node));
    return settings;
  }

  private BookKeeper startInProcess(int node, int port) throws IOException {
    Files.createDirectories(cacheDir(node));
    Configuration conf = new Configuration(false);
    daemonSettings(node, port).forEach(conf::set);
    BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(conf));
    checkTransferPort(node, bookKeeper.transferPort(), bookKeeper::close);
    return bookKeeper;
  }

  private BookKeeperProcess startProcess(int node, int port) throws IOException, InterruptedException {
    BookKeeperProcess process = BookKeeperProcess.start(Files.createDirectories(cacheDir(node)), daemonSettings(node, port));
    checkTransferPort(node, process.transferPort(), process::close);
    return process;
  }

  private void checkTransferPort(int node, int bound, Runnable close) {
    if (bound <= 0 || (transferPort != 0 && bound != transferPort)) {
      close.run();
      throw new IllegalStateException(nodeId(node) + " bound data-transfer port " + bound + ", not the cluster's " + transferPort);
    }
  }

  private void startAll() throws Exception {
    try {
      if (childJvms) {
        processes[1] = startProcess(1, 0);
        transferPort = processes[1].transferPort();
        ports[1] = processes[1].port();
        startOtherProcesses();
      } else {
        for (int node = 1; node <= size; node++) {
          bookKeepers[node] = startInProcess(node, 0);
          ports[node] = bookKeepers[node].port();
          if (node == 1) {
            transferPort = bookKeepers[1].transferPort();
          }
        }
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Nodes 2 .. N side by side: JVM start-up dominates. */
  private void startOtherProcesses() throws Exception {
    ExecutorService starter = Executors.newFixedThreadPool(size);
    try {
      List<Future<BookKeeperProcess>> started = new ArrayList<>();
      for (int node = 2; node <= size; node++) {
        int n = node;
        started.add(starter.submit(() -> startProcess(n, 0)));
      }
      Exception failure = null;
      for (int node = 2; node <= size; node++) {
        try {
          processes[node] = started.get(node - 2).get(BookKeeperProcess.START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          ports[node] = processes[node].port();
        } catch (Exception e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      starter.shutdown();
    }
  }

  /** What the nodes of a cluster share; nothing starts until {@link #startInProcess} or {@link #startChildJvms}. */
  static final class Builder {
    private final Path root;
    private final int size;
    private int blockSize = 256 * 1024;
    private final Map<String, String> daemonSettings = new LinkedHashMap<>();
    private IntFunction<Map<String, String>> nodeSettings = node -> Map.of();
    private final Map<String, String> clientSettings = new LinkedHashMap<>();

    private Builder(Path root, int size) {
      this.root = requireNonNull(root, "root is null");
      if (size < 1 || size > 254) {
        throw new IllegalArgumentException("size must be 1 to 254: " + size);
      }
      this.size = size;
    }

    /** The block size of daemons and clients, also the split size of clients; 256 KiB unless set. */
    Builder blockSize(int bytes) {
      this.blockSize = bytes;
      return this;
    }

    /** A daemon setting of every node (over the cluster's own). */
    Builder daemon(String key, String value) {
      daemonSettings.put(key, value);
      return this;
    }

    /** The {@code fs.s3a.*} settings of {@code s3a} for every daemon: a node's own credentials, for blocks it fetches from the source for its peers. */
    Builder sourceCredentials(Configuration s3a) {
      s3a.getPropsWithPrefix("fs.s3a.").forEach((key, value) -> daemonSettings.put("fs.s3a." + key, value));
      return this;
    }

    /** Daemon settings of every node, by node (over the settings of every node). */
    Builder daemon(IntFunction<Map<String, String>> settings) {
      this.nodeSettings = requireNonNull(settings, "settings is null");
      return this;
    }

    /** A client setting of every {@link #clientConf} (over the cluster's own). */
    Builder client(String key, String value) {
      clientSettings.put(key, value);
      return this;
    }

    /** Starts every node in this JVM, node 1 first. */
    TestCluster startInProcess() throws Exception {
      TestCluster cluster = new TestCluster(this, false);
      cluster.startAll();
      return cluster;
    }

    /** Starts every node in its own JVM: node 1 first, then the others side by side. */
    TestCluster startChildJvms() throws Exception {
      TestCluster cluster = new TestCluster(this, true);
      cluster.startAll();
      return cluster;
    }
  }
}
