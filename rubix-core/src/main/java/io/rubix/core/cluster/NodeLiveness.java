package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which nodes of the cluster manager's view are reachable now.
 *
 * <p>A node goes down when a peer read from it fails ({@link #markDown}). It then stays down for at
 * least {@code rubix.cluster.liveness.down.duration}, after which a background daemon thread probes
 * it ({@link TcpConnectProbe}), again after {@code rubix.cluster.liveness.probe.interval}, doubled
 * after every failed probe up to {@code rubix.cluster.liveness.probe.max.interval}; the first probe
 * that connects brings it back up. A node that leaves the view is forgotten; this node is never down
 * in its own eyes. Every transition is logged and counted ({@link #snapshot()}).
 *
 * <p>Readers see the down nodes as an immutable {@link DownSet} through one volatile read. Changes
 * happen under one lock that is never held across I/O: probes run outside it and apply their result
 * only if the node's state is still the one they probed for.
 */
public final class NodeLiveness implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeLiveness.class);

  /** The ids of the nodes down at one moment; replaced, never changed, so readers can compare by identity. */
  record DownSet(Set<String> ids) {
    static final DownSet NONE = new DownSet(Set.of());

    DownSet {
      ids = Set.copyOf(ids);
    }

    boolean contains(String id) {
      return ids.contains(id);
    }
  }

  /** One down node: since when, and how many probes failed since. A new instance for every change. */
  private record Down(ClusterNode node, long sinceNanos, int failedProbes, String reason) {}

  private final ClusterManager manager;
  private final LivenessConfig config;
  private final NodeProbe probe;
  private final LongSupplier nanoTime;
  private final ProbeScheduler scheduler;
  private final Object lock = new Object();
  @GuardedBy("lock")
  private final Map<String, Down> down = new HashMap<>();
  /** The view the last membership change was computed against. */
  @GuardedBy("lock")
  private ClusterView lastView;
  @GuardedBy("lock")
  private boolean closed;
  private volatile DownSet downSet = DownSet.NONE;
  private final AtomicLong downTransitions = new AtomicLong();
  private final AtomicLong upTransitions = new AtomicLong();
  private final AtomicLong probes = new AtomicLong();
  private final AtomicLong checks = new AtomicLong();
  private final AtomicLong failedProbes = new AtomicLong();
  private final AtomicLong nodesAdded = new AtomicLong();
  private final AtomicLong nodesRemoved = new AtomicLong();

  /** Tracks the nodes of {@code manager}'s views, probing down nodes with TCP connects on a daemon thread. */
  public NodeLiveness(ClusterManager manager, LivenessConfig config) {
    this(manager, config, new TcpConnectProbe(config.probePort(), config.probeTimeout()), System::nanoTime,
        new DaemonProbeScheduler("rubix-cluster-liveness"));
  }

  NodeLiveness(ClusterManager manager, LivenessConfig config, NodeProbe probe, LongSupplier nanoTime, ProbeScheduler scheduler) {
    this.manager = requireNonNull(manager, "manager is null");
    this.config = requireNonNull(config, "config is null");
    this.probe = requireNonNull(probe, "probe is null");
    this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
    this.scheduler = requireNonNull(scheduler, "scheduler is null");
    manager.addListener(this::viewChanged);
    synchronized (lock) {
      if (lastView == null) {
        lastView = manager.view();
      }
    }
    if (!config.checkInterval().isZero()) {
      scheduler.schedule(this::checkLiveNodes, config.checkInterval().toNanos());
    }
  }

  /**
   * Probes every live node of the view but this one ({@code rubix.cluster.liveness.check.interval}),
   * one after the other on the background thread, takes those that do not answer out of the ring,
   * and schedules the next round.
   */
  private void checkLiveNodes() {
    synchronized (lock) {
      if (closed) {
        return;
      }
    }
    ClusterView view = manager.view();
    String local = view.local().map(ClusterNode::id).orElse(null);
    for (ClusterNode node : view.nodes()) {
      if (node.id().equals(local) || downSet.contains(node.id())) {
        continue;
      }
      checks.incrementAndGet();
      try {
        probe.check(node);
      } catch (IOException | RuntimeException e) {
        markDown(node, "periodic liveness check failed: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      }
    }
    scheduler.schedule(this::checkLiveNodes, config.checkInterval().toNanos());
  }

  public LivenessConfig config() {
    return config;
  }

  /** The nodes down now; one volatile read. */
  DownSet downSet() {
    return downSet;
  }

  /** Whether the node with id {@code id} is down now. */
  public boolean isDown(String id) {
    return downSet.contains(id);
  }

  /**
   * Takes {@code node} out of the ring because talking to it failed ({@code reason}, for the log).
   * Does nothing when it is already down, is this node or is not in the current view. Never blocks:
   * the probe that may bring it back runs on the background thread.
   */
  public void markDown(ClusterNode node, String reason) {
    requireNonNull(node, "node is null");
    ClusterView view = manager.view();
    if (view.local().map(local -> local.id().equals(node.id())).orElse(false) || !view.nodes().contains(node)) {
      return;
    }
    Down entry;
    synchronized (lock) {
      if (closed || down.containsKey(node.id())) {
        return;
      }
      entry = new Down(node, nanoTime.getAsLong(), 0, reason);
      down.put(node.id(), entry);
      // counted before it shows: whoever sees the node down sees its transition counted
      downTransitions.incrementAndGet();
      publish();
    }
    LOG.warn("Cache node {} ({}) is down: {}. Its splits go to the other {} of {} nodes until it answers again (first probe in {})",
        node.id(), node.host(), reason, liveCount(view), view.nodes().size(), millis(config.downDuration()));
    scheduler.schedule(() -> probe(entry), config.downDuration().toNanos());
  }

  /** Probes the node of {@code entry} if that is still its state; brings it up or schedules the next probe. */
  private void probe(Down entry) {
    String id = entry.node().id();
    synchronized (lock) {
      if (closed || down.get(id) != entry) {
        return;
      }
    }
    probes.incrementAndGet();
    String failure = null;
    try {
      probe.check(entry.node());
    } catch (IOException | RuntimeException e) {
      failure = e.getMessage() == null ? e.toString() : e.getMessage();
    }
    if (failure == null) {
      synchronized (lock) {
        if (closed || down.get(id) != entry) {
          return;
        }
        down.remove(id);
        // counted before it shows: whoever sees the node up again sees its transition counted
        upTransitions.incrementAndGet();
        publish();
      }
      ClusterView view = manager.view();
      LOG.info("Cache node {} ({}) answers again after {} down ({} failed probes): its splits return to it; {} of {} nodes live", id,
          entry.node().host(), millis(Duration.ofNanos(nanoTime.getAsLong() - entry.sinceNanos())), entry.failedProbes(), liveCount(view),
          view.nodes().size());
      return;
    }
    failedProbes.incrementAndGet();
    Down next = new Down(entry.node(), entry.sinceNanos(), entry.failedProbes() + 1, entry.reason());
    synchronized (lock) {
      if (closed || down.get(id) != entry) {
        return;
      }
      down.put(id, next);
    }
    Duration delay = config.probeDelay(entry.failedProbes());
    LOG.debug("Cache node {} is still down ({}); next probe in {}", id, failure, millis(delay));
    scheduler.schedule(() -> probe(next), delay.toNanos());
  }

  /** Logs and counts nodes that joined or left; forgets the down state of nodes that left or changed address. */
  private void viewChanged(ClusterView view) {
    List<ClusterNode> added = new ArrayList<>();
    List<ClusterNode> removed = new ArrayList<>();
    int downCount;
    synchronized (lock) {
      ClusterView previous = lastView;
      lastView = view;
      if (previous == null) {
        return;
      }
      for (ClusterNode node : view.nodes()) {
        if (!previous.nodes().contains(node)) {
          added.add(node);
        }
      }
      for (ClusterNode node : previous.nodes()) {
        if (!view.nodes().contains(node)) {
          removed.add(node);
        }
      }
      nodesAdded.addAndGet(added.size());
      nodesRemoved.addAndGet(removed.size());
      boolean changed = false;
      for (ClusterNode node : removed) {
        Down entry = down.get(node.id());
        if (entry != null && entry.node().equals(node)) {
          down.remove(node.id());
          changed = true;
        }
      }
      if (changed) {
        publish();
      }
      downCount = down.size();
    }
    if (!added.isEmpty() || !removed.isEmpty()) {
      LOG.info("Cache cluster membership changed: added {}, removed {}; now {} nodes, {} of them down", ids(added), ids(removed),
          view.nodes().size(), downCount);
    }
  }

  @GuardedBy("lock")
  private void publish() {
    downSet = new DownSet(down.keySet());
  }

  private int liveCount(ClusterView view) {
    DownSet current = downSet;
    return (int) view.nodes().stream().filter(node -> !current.contains(node.id())).count();
  }

  private static String millis(Duration duration) {
    return duration.toMillis() + " ms";
  }

  private static List<String> ids(List<ClusterNode> nodes) {
    return nodes.stream().map(ClusterNode::id).toList();
  }

  /** The current state and the counters since the tracker started. */
  public LivenessSnapshot snapshot() {
    ClusterView view = manager.view();
    DownSet current = downSet;
    return new LivenessSnapshot(view.nodes(), view.nodes().stream().filter(node -> current.contains(node.id())).toList(), downTransitions.get(),
        upTransitions.get(), probes.get(), failedProbes.get(), nodesAdded.get(), nodesRemoved.get(), checks.get());
  }

  /** Stops probing; nodes down now stay down. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
    }
    scheduler.close();
  }
}
