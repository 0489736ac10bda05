package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.stats.JmxBeans;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.management.ObjectName;

/**
 * The {@link ClusterMembershipMXBean} of one cluster manager. Managers that implement {@link
 * RefreshStatus} report their refreshes; others (a fixed list) report the time the bean was built and
 * no failures.
 */
public final class ClusterMembershipBean implements ClusterMembershipMXBean {

  private final ClusterManager manager;
  private final String description;
  private final Instant created;
  private final Supplier<? extends Collection<String>> downNodes;

  /**
   * @param description the manager's name and source, without secrets
   * @param downNodes the ids of listed nodes currently considered down (a liveness tracker's), read on each JMX call
   */
  public ClusterMembershipBean(ClusterManager manager, String description, Instant created, Supplier<? extends Collection<String>> downNodes) {
    this.manager = requireNonNull(manager, "manager is null");
    this.description = requireNonNull(description, "description is null");
    this.created = requireNonNull(created, "created is null");
    this.downNodes = requireNonNull(downNodes, "downNodes is null");
  }

  @Override
  public String getManager() {
    return description;
  }

  @Override
  public List<String> getNodes() {
    return manager.view().nodes().stream().map(node -> node.id() + "=" + node.name()).toList();
  }

  @Override
  public int getNodeCount() {
    return manager.view().nodes().size();
  }

  @Override
  public String getLocalNode() {
    return manager.view().local().map(ClusterNode::id).orElse("none");
  }

  @Override
  public long getViewVersion() {
    return manager.view().generation();
  }

  @Override
  public String getLastSuccessfulRefresh() {
    return lastSuccess().map(Instant::toString).orElse("never");
  }

  @Override
  public long getLastSuccessfulRefreshMillis() {
    return lastSuccess().map(Instant::toEpochMilli).orElse(0L);
  }

  @Override
  public int getConsecutiveFailures() {
    return manager instanceof RefreshStatus status ? status.consecutiveFailures() : 0;
  }

  @Override
  public String getLastError() {
    return manager instanceof RefreshStatus status ? status.lastError().orElse("") : "";
  }

  @Override
  public List<String> getDownNodes() {
    return List.copyOf(downNodes.get());
  }

  private Optional<Instant> lastSuccess() {
    if (manager instanceof RefreshStatus status) {
      return status.lastSuccessfulRefresh();
    }
    ClusterView view = manager.view();
    return view.isEmpty() ? Optional.empty() : Optional.of(created);
  }

  /** Registers {@code bean} under {@code io.rubix:type=ClusterMembership}; null when that fails (logged). */
  static ObjectName register(ClusterMembershipBean bean, String managerName, Object owner) {
    return JmxBeans.register(bean, "io.rubix:type=ClusterMembership,manager=" + ObjectName.quote(managerName) + ",id=" + JmxBeans.idOf(owner),
        "the cluster membership of " + managerName);
  }

  static void unregister(ObjectName name) {
    JmxBeans.unregister(name);
  }
}
