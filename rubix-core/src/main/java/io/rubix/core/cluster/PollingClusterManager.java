package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.cluster.ClusterListener;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import io.rubix.spi.cluster.LocalIdentity;
import io.rubix.spi.cluster.NodeNames;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster manager that asks a {@link NodeSource} for the node list on its own daemon thread, every
 * refresh interval, and publishes what it learns; {@link #view()} only reads the published view.
 *
 * <p>Design note. A refresh that fails (the source is down, slow, refuses or answers garbage) leaves
 * the last list in place, and the pause before the next refresh doubles with each failure in a row,
 * from the refresh interval up to {@code backoffMax}; the first failure of a streak is logged as a
 * warning, the following ones only at debug level, and the recovery once. An <em>empty</em> list is
 * not published once a non-empty one was learned: a coordinator that just restarted, or a
 * ResourceManager that fails over, briefly knows no workers, and dropping every node would move all
 * splits twice within seconds. Such an answer counts as a failure (visible over JMX) but without
 * backoff, so the real list is picked up at the next interval. A cluster that really shrinks to no
 * node therefore keeps its last nodes; reads of their splits fall back to the source.
 *
 * <p>The constructor waits up to {@code initialWait} for the first answer, so a file system created
 * at the start of a job already knows the cluster; after that the view is empty (single node) until
 * the source answers.
 */
public final class PollingClusterManager implements ClusterManager, RefreshStatus {
  private static final Logger LOG = LoggerFactory.getLogger(PollingClusterManager.class);

  private final NodeSource source;
  private final int port;
  private final Duration interval;
  private final Duration backoffMax;
  private final Clock clock;
  private final ViewHolder holder;
  private final ScheduledExecutorService scheduler;
  private final CountDownLatch firstRefresh = new CountDownLatch(1);
  // written by the refreshing thread only, read by JMX
  private volatile Instant lastSuccess;
  private volatile int failures;
  private volatile String lastError;

  /**
   * @param source where the node list comes from
   * @param port the RubiX port of every node (sources list hosts only)
   * @param identity who this node is
   * @param interval pause between refreshes while they succeed
   * @param backoffMax longest pause between refreshes while they fail
   * @param initialWait longest wait in the constructor for the first answer (zero: none)
   */
  public PollingClusterManager(NodeSource source, int port, LocalIdentity identity, Duration interval, Duration backoffMax,
      Duration initialWait, Clock clock) {
    this.source = requireNonNull(source, "source is null");
    this.port = port;
    this.interval = requireNonNull(interval, "interval is null");
    this.backoffMax = requireNonNull(backoffMax, "backoffMax is null");
    this.clock = requireNonNull(clock, "clock is null");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("Refresh interval must be positive: " + interval);
    }
    this.holder = new ViewHolder(identity, source.description());
    this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "rubix-cluster-" + source.description());
      thread.setDaemon(true);
      return thread;
    });
    scheduler.execute(this::refresh);
    try {
      if (!firstRefresh.await(initialWait.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.info("No node list from {} within {} ms; behaving as a single node until it answers", source.description(),
            initialWait.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public ClusterView view() {
    return holder.view();
  }

  @Override
  public void addListener(ClusterListener listener) {
    holder.addListener(listener);
  }

  /** What the nodes come from. */
  public String source() {
    return source.description();
  }

  @Override
  public Optional<Instant> lastSuccessfulRefresh() {
    return Optional.ofNullable(lastSuccess);
  }

  @Override
  public int consecutiveFailures() {
    return failures;
  }

  @Override
  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  /** Whether the refreshing thread is still scheduled (false after {@link #close()}). */
  boolean running() {
    return !scheduler.isTerminated();
  }

  private void refresh() {
    boolean backOff = false;
    try {
      List<String> hosts = source.fetchHosts();
      if (hosts.isEmpty() && !holder.view().isEmpty()) {
        failed("answered with no nodes; keeping the last " + holder.view().nodes().size(), null);
      } else {
        List<ClusterNode> nodes = nodes(hosts);
        // the status first: whoever sees the new view (a reader, a listener called by publish) sees its refresh counted too
        succeeded(nodes.size());
        holder.publish(nodes);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (IOException | RuntimeException e) {
      backOff = true;
      failed(e.getMessage() == null ? e.toString() : e.getMessage(), e);
    } finally {
      firstRefresh.countDown();
    }
    schedule(backOff ? delay(interval, backoffMax, failures) : interval);
  }

  private List<ClusterNode> nodes(List<String> hosts) {
    Set<String> distinct = new LinkedHashSet<>();
    for (String host : hosts) {
      distinct.add(NodeNames.normalize(host));
    }
    List<ClusterNode> nodes = new ArrayList<>(distinct.size());
    for (String host : distinct) {
      nodes.add(ClusterNode.of(host, port));
    }
    return nodes;
  }

  private void succeeded(int nodes) {
    if (failures > 0) {
      LOG.info("Node list from {} is answering again after {} failed refreshes: {} nodes", source.description(), failures, nodes);
    }
    lastSuccess = clock.instant();
    failures = 0;
    lastError = null;
  }

  private void failed(String message, Exception e) {
    int count = failures + 1;
    failures = count;
    lastError = message;
    int known = holder.view().nodes().size();
    if (count == 1) {
      if (e == null) {
        LOG.warn("Node list from {} {}", source.description(), message);
      } else {
        LOG.warn("Cannot refresh the node list from {}: {}; keeping the last list ({} nodes), retrying with backoff up to {} ms",
            source.description(), message, known, backoffMax.toMillis());
        LOG.debug("Node list refresh failure", e);
      }
    } else {
      LOG.debug("Node list from {} failed {} times in a row: {}", source.description(), count, message);
    }
  }

  private void schedule(Duration delay) {
    try {
      scheduler.schedule(this::refresh, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** The pause after {@code failures} failed refreshes in a row: doubling from {@code interval}, at most {@code max} (or the interval, if larger). */
  static Duration delay(Duration interval, Duration max, int failures) {
    if (failures <= 0) {
      return interval;
    }
    Duration cap = max.compareTo(interval) < 0 ? interval : max;
    int shift = Math.min(failures - 1, 30);
    long millis = interval.toMillis();
    if (millis > cap.toMillis() >> shift) {
      return cap;
    }
    return Duration.ofMillis(Math.min(cap.toMillis(), millis << shift));
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
