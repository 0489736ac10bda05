package io.rubix.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.LocalIdentity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The liveness tracker with a hand-driven clock, scheduler and probe (which nodes answer is a set the
 * test controls), plus one run of the real daemon thread and TCP probe against a loopback socket.
 */
class NodeLivenessTest {
  private static final ClusterNode A = new ClusterNode("a", "host-a", 8899);
  private static final ClusterNode B = new ClusterNode("b", "host-b", 8899);
  private static final ClusterNode C = new ClusterNode("c", "host-c", 8899);
  private static final LivenessConfig CONFIG =
      new LivenessConfig(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(8), 8898, Duration.ofSeconds(1));

  private final AtomicLong clock = new AtomicLong();
  private final ManualScheduler scheduler = new ManualScheduler();
  private final Set<String> answering = ConcurrentHashMap.newKeySet();
  private final List<String> probed = new ArrayList<>();
  private final TestManager manager = new TestManager(LocalIdentity.ofNodeId("a"), List.of(A, B, C));

  private NodeLiveness liveness() {
    return new NodeLiveness(manager, CONFIG, node -> {
      probed.add(node.id());
      if (!answering.contains(node.id())) {
        throw new IOException("refused");
      }
    }, clock::get, scheduler);
  }

  @Test
  void aDownNodeIsProbedAfterTheDownDurationWithBackoffAndRejoinsWhenItAnswers() {
    NodeLiveness liveness = liveness();
    liveness.markDown(B, "connection refused");
    assertThat(liveness.isDown("b")).isTrue();
    assertThat(liveness.snapshot().down()).containsExactly(B);
    assertThat(liveness.snapshot().live()).containsExactly(A, C);
    assertThat(scheduler.delays).containsExactly(Duration.ofSeconds(10));

    // still down: 2s, 4s, 8s, 8s
    for (int i = 0; i < 4; i++) {
      scheduler.runNext();
    }
    assertThat(scheduler.delays).containsExactly(Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8),
        Duration.ofSeconds(8));
    assertThat(liveness.isDown("b")).isTrue();

    answering.add("b");
    scheduler.runNext();
    assertThat(liveness.isDown("b")).isFalse();
    assertThat(scheduler.pending).as("no probe once it is up").isEmpty();
    LivenessSnapshot snapshot = liveness.snapshot();
    assertThat(snapshot.down()).isEmpty();
    assertThat(snapshot.downTransitions()).isEqualTo(1);
    assertThat(snapshot.upTransitions()).isEqualTo(1);
    assertThat(snapshot.probes()).isEqualTo(5);
    assertThat(snapshot.failedProbes()).isEqualTo(4);
    assertThat(probed).containsOnly("b");

    // down again later: a new transition, probing starts over from the down duration
    liveness.markDown(B, "timeout");
    assertThat(liveness.snapshot().downTransitions()).isEqualTo(2);
    assertThat(scheduler.delays.get(scheduler.delays.size() - 1)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void periodicChecksTakeASilentlyDeadNodeOutOfTheRingOfAJvmThatReadsNothing() {
    LivenessConfig checking = new LivenessConfig(CONFIG.downDuration(), CONFIG.probeInterval(), CONFIG.probeMaxInterval(), CONFIG.probePort(),
        CONFIG.probeTimeout(), Duration.ofSeconds(30));
    answering.add("c");
    NodeLiveness liveness = new NodeLiveness(manager, checking, node -> {
      probed.add(node.id());
      if (!answering.contains(node.id())) {
        throw new IOException("refused");
      }
    }, clock::get, scheduler);
    assertThat(scheduler.delays).as("first round after the interval, nothing probed yet").containsExactly(Duration.ofSeconds(30));
    assertThat(probed).isEmpty();

    scheduler.runNext();
    assertThat(probed).as("every node but this one").containsExactly("b", "c");
    assertThat(liveness.isDown("b")).isTrue();
    assertThat(liveness.isDown("c")).isFalse();
    assertThat(liveness.snapshot().liveChecks()).isEqualTo(2);
    // b's recovery probes (after the down duration) and the next round are both scheduled
    assertThat(scheduler.delays).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(30));

    probed.clear();
    answering.add("b");
    scheduler.runNext(); // b's probe: it answers again
    scheduler.runNext(); // the next round checks both live nodes
    assertThat(liveness.isDown("b")).isFalse();
    assertThat(probed).containsExactly("b", "b", "c");

    liveness.close();
    scheduler.runAll();
    assertThat(probed).as("no round after close").hasSize(3);
  }

  @Test
  void theLocalNodeUnknownNodesAndRepeatedFailuresChangeNothing() {
    NodeLiveness liveness = liveness();
    liveness.markDown(A, "a reader cannot lose itself");
    liveness.markDown(new ClusterNode("z", "host-z", 8899), "not listed");
    liveness.markDown(new ClusterNode("b", "elsewhere", 8899), "b's old address");
    assertThat(liveness.snapshot().down()).isEmpty();
    assertThat(scheduler.pending).isEmpty();

    liveness.markDown(C, "refused");
    liveness.markDown(C, "refused again");
    assertThat(liveness.snapshot().downTransitions()).isEqualTo(1);
    assertThat(scheduler.pending).hasSize(1);
  }

  @Test
  void aNodeThatLeavesTheViewIsForgottenAndItsProbesStop() {
    NodeLiveness liveness = liveness();
    liveness.markDown(B, "refused");
    manager.publish(List.of(A, C));
    assertThat(liveness.isDown("b")).isFalse();
    scheduler.runNext();
    assertThat(probed).as("no probe of a node that left").isEmpty();

    manager.publish(List.of(A, B, C));
    assertThat(liveness.isDown("b")).isFalse();
    LivenessSnapshot snapshot = liveness.snapshot();
    assertThat(snapshot.nodesRemoved()).isEqualTo(1);
    assertThat(snapshot.nodesAdded()).isEqualTo(1);
    assertThat(snapshot.nodes()).containsExactly(A, B, C);
  }

  @Test
  void closingStopsProbing() {
    NodeLiveness liveness = liveness();
    liveness.markDown(B, "refused");
    liveness.close();
    answering.add("b");
    scheduler.runNext();
    assertThat(probed).isEmpty();
    assertThat(liveness.isDown("b")).isTrue();
    liveness.markDown(C, "after close");
    assertThat(liveness.isDown("c")).isFalse();
  }

  @Test
  void probeDelaysDoubleUpToTheMaximum() {
    LivenessConfig config = new LivenessConfig(Duration.ZERO, Duration.ofMillis(300), Duration.ofSeconds(1), 0, Duration.ofSeconds(1));
    assertThat(config.probeDelay(0)).isEqualTo(Duration.ofMillis(300));
    assertThat(config.probeDelay(1)).isEqualTo(Duration.ofMillis(600));
    assertThat(config.probeDelay(2)).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.probeDelay(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void configurationDefaultsAndValidation() {
    Configuration conf = new Configuration(false);
    LivenessConfig defaults = LivenessConfig.from(conf);
    assertThat(defaults.downDuration()).isEqualTo(Duration.ofSeconds(10));
    assertThat(defaults.probeInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(defaults.probeMaxInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.probePort()).as("the data-transfer port").isEqualTo(8898);
    assertThat(defaults.probeTimeout()).isEqualTo(Duration.ofSeconds(2));

    conf.set("rubix.network.transfer.server.port", "0");
    assertThat(LivenessConfig.from(conf).probePort()).as("no fixed transfer port: each node's listed port").isZero();

    Configuration bad = new Configuration(false);
    bad.set("rubix.cluster.liveness.probe.interval", "5s");
    bad.set("rubix.cluster.liveness.probe.max.interval", "1s");
    assertThatThrownBy(() -> LivenessConfig.from(bad)).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cluster.liveness.probe.max.interval").hasMessageContaining("rubix.cluster.liveness.probe.interval");
    Configuration negative = new Configuration(false);
    negative.set("rubix.cluster.liveness.down.duration", "-1s");
    assertThatThrownBy(() -> LivenessConfig.from(negative)).hasMessageContaining("rubix.cluster.liveness.down.duration");
  }

  @Test
  void tcpProbeConnectsToTheTransferPortOrTheListedPort() throws Exception {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    int closedPort;
    try (ServerSocket server = new ServerSocket(0, 1, loopback)) {
      new TcpConnectProbe(server.getLocalPort(), Duration.ofSeconds(1)).check(new ClusterNode("x", "127.0.0.1", 1));
      new TcpConnectProbe(0, Duration.ofSeconds(1)).check(new ClusterNode("x", "127.0.0.1", server.getLocalPort()));
      closedPort = server.getLocalPort();
    }
    assertThatThrownBy(() -> new TcpConnectProbe(closedPort, Duration.ofSeconds(1)).check(new ClusterNode("x", "127.0.0.1", 1)))
        .isInstanceOf(IOException.class).hasMessageContaining("127.0.0.1:" + closedPort);
  }

  @Test
  void theBackgroundThreadBringsBackANodeOnceItsPortAcceptsConnections() throws Exception {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    int port;
    try (ServerSocket probePort = new ServerSocket(0, 1, loopback)) {
      port = probePort.getLocalPort();
    }
    ClusterNode peer = new ClusterNode("peer", "127.0.0.1", port);
    TestManager cluster = new TestManager(LocalIdentity.ofNodeId("self"), List.of(new ClusterNode("self", "127.0.0.9", 1), peer));
    LivenessConfig config = new LivenessConfig(Duration.ZERO, Duration.ofMillis(20), Duration.ofMillis(80), 0, Duration.ofMillis(500));
    try (NodeLiveness liveness = new NodeLiveness(cluster, config)) {
      liveness.markDown(peer, "refused");
      await(() -> liveness.snapshot().failedProbes() >= 2);
      assertThat(liveness.isDown("peer")).isTrue();
      try (ServerSocket server = new ServerSocket()) {
        server.setReuseAddress(true);
        server.bind(new java.net.InetSocketAddress(loopback, port), 1);
        await(() -> !liveness.isDown("peer"));
      }
      assertThat(liveness.snapshot().upTransitions()).isEqualTo(1);
    }
  }

  private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 20 s").isLessThan(deadline);
      // polling interval, not synchronization: the condition decides
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  /** Runs scheduled tasks when the test says so, in order, recording the delays they asked for. */
  static final class ManualScheduler implements ProbeScheduler {
    final List<Duration> delays = new ArrayList<>();
    final List<Runnable> pending = new ArrayList<>();

    @Override
    public void schedule(Runnable task, long delayNanos) {
      delays.add(Duration.ofNanos(delayNanos));
      pending.add(task);
    }

    void runNext() {
      assertThat(pending).as("a scheduled probe").isNotEmpty();
      pending.remove(0).run();
    }

    void runAll() {
      while (!pending.isEmpty()) {
        runNext();
      }
    }

    @Override
    public void close() {}
  }

  /** A cluster manager whose node list the test publishes. */
  static final class TestManager implements io.rubix.spi.cluster.ClusterManager {
    private final ViewHolder holder;

    TestManager(LocalIdentity identity, List<ClusterNode> nodes) {
      this.holder = new ViewHolder(identity, "test");
      holder.publish(nodes);
    }

    void publish(List<ClusterNode> nodes) {
      holder.publish(nodes);
    }

    @Override
    public io.rubix.spi.cluster.ClusterView view() {
      return holder.view();
    }

    @Override
    public void addListener(io.rubix.spi.cluster.ClusterListener listener) {
      holder.addListener(listener);
    }

    @Override
    public void close() {}
  }
}
