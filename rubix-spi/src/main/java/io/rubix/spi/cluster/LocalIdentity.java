package io.rubix.spi.cluster;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who this node is, so that it finds itself in a cluster list however the list spells it.
 *
 * <p>With a configured node id ({@code rubix.cluster.node.id}) the local node is the listed node with
 * that id, and nothing else. Without one, this node answers to every name it has: the addresses of
 * all its network interfaces, its host name and its canonical host name; a listed node is this node
 * when its id or host equals one of them after {@link NodeNames#normalize normalisation}, or, when
 * either side is an unqualified name, when their first labels agree ({@code worker-1} is
 * {@code worker-1.example.com}). RubiX lost all locality when the list said an FQDN and the node knew
 * itself by its short name (or an IP); matching every name closes that gap without DNS lookups of the
 * listed nodes.
 */
public final class LocalIdentity {
  private static final Logger LOG = LoggerFactory.getLogger(LocalIdentity.class);

  private final Optional<String> configuredId;
  private final Set<String> names;
  private final Set<String> shortNames;

  private LocalIdentity(Optional<String> configuredId, Collection<String> names) {
    this.configuredId = configuredId.map(NodeNames::normalize);
    Set<String> normalized = new LinkedHashSet<>();
    for (String name : names) {
      String n = NodeNames.normalize(name);
      if (!n.isEmpty()) {
        normalized.add(n);
      }
    }
    this.names = Collections.unmodifiableSet(normalized);
    Set<String> shorts = new LinkedHashSet<>();
    normalized.forEach(n -> shorts.add(NodeNames.shortName(n)));
    this.shortNames = Collections.unmodifiableSet(shorts);
  }

  /** The node whose id is {@code nodeId}. */
  public static LocalIdentity ofNodeId(String nodeId) {
    requireNonNull(nodeId, "nodeId is null");
    return new LocalIdentity(Optional.of(nodeId), List.of(nodeId));
  }

  /** A node known by exactly {@code names} (host names or IP literals); for tests and embedders. */
  public static LocalIdentity ofNames(Collection<String> names) {
    return new LocalIdentity(Optional.empty(), List.copyOf(names));
  }

  /**
   * This machine: {@code nodeId} when not null, else every interface address, the host name and the
   * canonical host name. Resolving the host names may consult DNS once; call it when the cluster
   * manager starts, not on a read.
   */
  public static LocalIdentity detect(String nodeId) {
    if (nodeId != null && !nodeId.isBlank()) {
      return ofNodeId(nodeId);
    }
    Set<String> names = new LinkedHashSet<>();
    try {
      Enumeration<NetworkInterface> interfaces = NetworkInterface.getNetworkInterfaces();
      while (interfaces != null && interfaces.hasMoreElements()) {
        NetworkInterface networkInterface = interfaces.nextElement();
        for (Enumeration<InetAddress> addresses = networkInterface.getInetAddresses(); addresses.hasMoreElements(); ) {
          String address = addresses.nextElement().getHostAddress();
          int zone = address.indexOf('%');
          names.add(zone < 0 ? address : address.substring(0, zone));
        }
      }
    } catch (SocketException e) {
      LOG.warn("Could not list this node's network interfaces; it knows itself by its host name only", e);
    }
    try {
      InetAddress local = InetAddress.getLocalHost();
      names.add(local.getHostName());
      names.add(local.getCanonicalHostName());
      names.add(local.getHostAddress());
    } catch (UnknownHostException e) {
      LOG.warn("Could not resolve this node's host name; it knows itself by its interface addresses only", e);
    }
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      names.add(env);
    }
    return new LocalIdentity(Optional.empty(), names);
  }

  /** The configured node id, when this identity is one. */
  public Optional<String> configuredId() {
    return configuredId;
  }

  /** Every normalised name this node answers to. */
  public Set<String> names() {
    return names;
  }

  /** Whether {@code node} is this node. */
  public boolean matches(ClusterNode node) {
    if (configuredId.isPresent()) {
      return configuredId.get().equals(node.id());
    }
    return matchesName(node.id()) || matchesName(node.host());
  }

  /** Whether the normalised {@code name} is one of this node's names. */
  public boolean matchesName(String name) {
    if (names.contains(name)) {
      return true;
    }
    if (NodeNames.isIpLiteral(name)) {
      return false;
    }
    String shortName = NodeNames.shortName(name);
    if (name.equals(shortName)) {
      return shortNames.contains(shortName);
    }
    // a qualified listed name matches an unqualified local name with the same first label
    return names.contains(shortName);
  }

  /** The listed node that is this node, if any: the first match in {@code nodes}. */
  public Optional<ClusterNode> find(List<ClusterNode> nodes) {
    for (ClusterNode node : nodes) {
      if (matches(node)) {
        return Optional.of(node);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return configuredId.map(id -> "node id " + id).orElseGet(() -> "names " + names);
  }
}
