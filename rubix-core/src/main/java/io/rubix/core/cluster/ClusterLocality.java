package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.Admission;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import java.io.Closeable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.management.ObjectName;

/**
 * Which node owns which split of a file, and whether this node caches a block: files are cut into
 * splits of {@code rubix.cache.filesplit.size}, and split {@code i} of {@code path} belongs to the
 * node that wins the {@link Rendezvous} for {@code (path, i)} over the manager's current view. A
 * block belongs to the split that holds its first byte.
 *
 * <p>Owners are chosen among the live nodes: the view minus the nodes {@link NodeLiveness} holds down
 * (a peer read from them failed and no probe reached them since). Rendezvous hashing makes that move
 * only a down node's splits, each to its runner-up, and moves them back when the node answers again.
 * When every node of the view is down, the whole view is used (nothing better is known).
 *
 * <p>Lookups read the manager's view and the down set (never blocking) and reuse the hashed node
 * list until either changes. While the view is empty (no list learned yet) this node behaves as a
 * single node: it owns everything and reports no locality of its own.
 */
public final class ClusterLocality implements Closeable {
  private final ClusterManager manager;
  private final ClusterConfig config;
  private final NodeLiveness liveness;
  private volatile Ring ring;
  /** The membership JMX bean registered by {@link #exposeMembership}, unregistered by {@link #close}; null when none. */
  private volatile ObjectName beanName;

  /** Locality over {@code manager}'s views minus the nodes {@code liveness} (which tracks the same manager) holds down; closes both. */
  public ClusterLocality(ClusterManager manager, ClusterConfig config, NodeLiveness liveness) {
    this.manager = requireNonNull(manager, "manager is null");
    this.config = requireNonNull(config, "config is null");
    this.liveness = requireNonNull(liveness, "liveness is null");
    this.ring = new Ring(manager.view(), liveness.downSet());
  }

  /** Registers the membership JMX bean (view, refreshes, down nodes), unregistered by {@link #close}; {@code description} names the source. */
  public void exposeMembership(String description) {
    ClusterMembershipBean bean = new ClusterMembershipBean(manager, description, Instant.now(),
        () -> liveness.snapshot().down().stream().map(ClusterNode::id).toList());
    beanName = ClusterMembershipBean.register(bean, config.manager(), this);
  }

  public ClusterConfig config() {
    return config;
  }

  public ClusterManager manager() {
    return manager;
  }

  /** Which nodes are down: peer reads report failures to it, monitoring reads its {@link NodeLiveness#snapshot()}. */
  public NodeLiveness liveness() {
    return liveness;
  }

  public long splitSize() {
    return config.splitSize();
  }

  /** The current view (every node the manager lists, down or not). */
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

  /**
   * The node that owned the split holding byte {@code offset} of {@code path} before this node joined:
   * the split's runner-up among the live nodes, when this node is its owner; empty otherwise. Rendezvous
   * hashing gives a joining node only splits it outranks every other node on, so without it their owner
   * would be the runner-up.
   */
  public Optional<ClusterNode> previousOwner(String path, long offset) {
    Ring r = ring();
    if (r.rendezvous.size() < 2 || r.view.local().isEmpty()) {
      return Optional.empty();
    }
    int[] top = new int[2];
    r.rendezvous.top(Rendezvous.key(Rendezvous.pathHash(path), offset / config.splitSize()), top);
    if (!r.rendezvous.node(top[0]).equals(r.view.local().get())) {
      return Optional.empty();
    }
    return Optional.of(r.rendezvous.node(top[1]));
  }

  /** Whether this node caches the block of {@code path} starting at {@code offset} ({@code rubix.cache.admission}). */
  public boolean admits(String path, long offset) {
    if (admitsAll()) {
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

  /** True with {@code rubix.cache.admission=all}: this node caches every block it reads, whoever owns it. */
  public boolean admitsAll() {
    return config.admission() == Admission.ALL;
  }

  private Ring ring() {
    Ring r = ring;
    ClusterView current = manager.view();
    NodeLiveness.DownSet down = liveness.downSet();
    if (r.view != current || r.down != down) {
      r = new Ring(current, down);
      ring = r;
    }
    return r;
  }

  @Override
  public void close() {
    ClusterMembershipBean.unregister(beanName);
    beanName = null;
    try {
      liveness.close();
    } finally {
      manager.close();
    }
  }

  /** The live nodes of a view (all of them when every one is down), hashed for {@link Rendezvous}. */
  private static final class Ring {
    final ClusterView view;
    final NodeLiveness.DownSet down;
    final Rendezvous rendezvous;

    Ring(ClusterView view, NodeLiveness.DownSet down) {
      this.view = view;
      this.down = down;
      List<ClusterNode> live = view.nodes().stream().filter(node -> !down.contains(node.id())).toList();
      this.rendezvous = new Rendezvous(live.isEmpty() ? view.nodes() : live);
    }
  }
}
