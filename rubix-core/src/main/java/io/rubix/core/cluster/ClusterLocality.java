package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.Admission;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.read.BlockAdmission;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import io.rubix.spi.config.CacheKeys;
import java.io.Closeable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;

/**
 * Which node owns which split of a file, and whether this node caches a block: files are cut into
 * splits of {@code rubix.cache.filesplit.size}, and split {@code i} of {@code path} belongs to the
 * node that wins the {@link Rendezvous} for {@code (path, i)} over the manager's current view. A
 * block belongs to the split that holds its first byte.
 *
 * <p>Lookups read the manager's view (never blocking) and reuse the hashed node list until the view
 * changes. While the view is empty (no list learned yet) this node behaves as a single node: it owns
 * everything and reports no locality of its own.
 */
public final class ClusterLocality implements BlockAdmission, Closeable {
  private final ClusterManager manager;
  private final ClusterConfig config;
  private volatile Ring ring;
  /** The membership JMX bean registered by {@link #create}, unregistered by {@link #close}; null when none. */
  private volatile ObjectName beanName;

  public ClusterLocality(ClusterManager manager, ClusterConfig config) {
    this.manager = requireNonNull(manager, "manager is null");
    this.config = requireNonNull(config, "config is null");
    this.ring = new Ring(manager.view());
  }

  /** The locality {@code conf} configures, or null when {@code rubix.cluster.manager=none}. */
  public static ClusterLocality create(Configuration conf) {
    ClusterConfig config = ClusterConfig.from(conf);
    ClusterManager manager = ClusterManagers.create(conf, config);
    if (manager == null) {
      return null;
    }
    ClusterLocality locality = new ClusterLocality(manager, config);
    if (new ConfigReader(conf).getBoolean(CacheKeys.JMX_ENABLED)) {
      String description = manager instanceof PollingClusterManager polling ? polling.source() : config.manager();
      // down nodes: a liveness tracker plugs its view in here
      ClusterMembershipBean bean = new ClusterMembershipBean(manager, description, Instant.now(), List::of);
      locality.beanName = ClusterMembershipBean.register(bean, config.manager(), locality);
    }
    return locality;
  }

  public ClusterConfig config() {
    return config;
  }

  public ClusterManager manager() {
    return manager;
  }

  public long splitSize() {
    return config.splitSize();
  }

  /** The current view. */
  public ClusterView view() {
    return ring().view;
  }

  /**
   * The preferred hosts of split {@code split} of {@code path}: its owner first, then up to
   * {@code rubix.cluster.preferred.hosts - 1} runners-up; empty while no node is known.
   */
  public List<ClusterNode> owners(String path, long split) {
    return owners(Rendezvous.pathHash(path), split);
  }

  /** {@link #owners(String, long)} with the path hash computed once by the caller ({@link Rendezvous#pathHash}). */
  public List<ClusterNode> owners(long pathHash, long split) {
    Ring r = ring();
    if (r.rendezvous.size() == 0) {
      return List.of();
    }
    int[] indexes = new int[config.preferredHosts()];
    int count = r.rendezvous.top(Rendezvous.key(pathHash, split), indexes);
    List<ClusterNode> result = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      result.add(r.rendezvous.node(indexes[i]));
    }
    return result;
  }

  /** The owner of the split holding byte {@code offset} of {@code path}, or empty while no node is known. */
  public Optional<ClusterNode> ownerOf(String path, long offset) {
    Ring r = ring();
    if (r.rendezvous.size() == 0) {
      return Optional.empty();
    }
    return Optional.of(r.rendezvous.node(r.rendezvous.owner(Rendezvous.key(Rendezvous.pathHash(path), offset / config.splitSize()))));
  }

  /** Whether this node caches the block of {@code path} starting at {@code offset} ({@code rubix.cache.admission}). */
  @Override
  public boolean admits(String path, long offset) {
    if (config.admission() == Admission.ALL) {
      return true;
    }
    Ring r = ring();
    if (r.rendezvous.size() == 0) {
      return true;
    }
    if (r.view.local().isEmpty()) {
      return false;
    }
    int owner = r.rendezvous.owner(Rendezvous.key(Rendezvous.pathHash(path), offset / config.splitSize()));
    return r.rendezvous.node(owner).equals(r.view.local().get());
  }

  private Ring ring() {
    Ring r = ring;
    ClusterView current = manager.view();
    if (r.view != current) {
      r = new Ring(current);
      ring = r;
    }
    return r;
  }

  @Override
  public void close() {
    ClusterMembershipBean.unregister(beanName);
    beanName = null;
    manager.close();
  }

  /** A view with its nodes hashed for {@link Rendezvous}. */
  private static final class Ring {
    final ClusterView view;
    final Rendezvous rendezvous;

    Ring(ClusterView view) {
      this.view = view;
      this.rendezvous = new Rendezvous(view.nodes());
    }
  }
}
