package io.rubix.core.cluster;

import io.rubix.spi.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Parses node lists: entries {@code host}, {@code host:port}, {@code id=host} or {@code id=host:port},
 * IPv6 literals in brackets ({@code [::1]:8899}), separated by commas or line breaks; {@code #} starts
 * a comment that runs to the end of the line.
 */
public final class NodeList {
  private NodeList() {}

  /**
   * The nodes in {@code text}; fails with an {@link IllegalArgumentException} naming {@code source}
   * and the entry when one is malformed or an id repeats.
   */
  public static List<ClusterNode> parse(String text, int defaultPort, String source) {
    List<ClusterNode> nodes = new ArrayList<>();
    for (String line : text.split("\\R")) {
      int comment = line.indexOf('#');
      String content = comment < 0 ? line : line.substring(0, comment);
      for (String entry : content.split(",")) {
        String trimmed = entry.trim();
        if (!trimmed.isEmpty()) {
          nodes.add(parseEntry(trimmed, defaultPort, source));
        }
      }
    }
    Set<String> ids = new HashSet<>();
    for (ClusterNode node : nodes) {
      if (!ids.add(node.id())) {
        throw new IllegalArgumentException("Node id " + node.id() + " appears twice in " + source);
      }
    }
    return List.copyOf(nodes);
  }

  private static ClusterNode parseEntry(String entry, int defaultPort, String source) {
    String id = null;
    String address = entry;
    int equals = entry.indexOf('=');
    if (equals >= 0) {
      id = entry.substring(0, equals).trim();
      address = entry.substring(equals + 1).trim();
    }
    String host;
    int port = defaultPort;
    String portText = null;
    if (address.startsWith("[")) {
      int close = address.indexOf(']');
      if (close < 0) {
        throw malformed(entry, source);
      }
      host = address.substring(1, close);
      String rest = address.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          throw malformed(entry, source);
        }
        portText = rest.substring(1);
      }
    } else {
      int colon = address.indexOf(':');
      if (colon >= 0 && address.indexOf(':', colon + 1) >= 0) {
        host = address; // a bare IPv6 literal: no port
      } else if (colon >= 0) {
        host = address.substring(0, colon);
        portText = address.substring(colon + 1);
      } else {
        host = address;
      }
    }
    if (portText != null) {
      try {
        port = Integer.parseInt(portText.trim());
      } catch (NumberFormatException e) {
        throw malformed(entry, source);
      }
    }
    if (host.isBlank() || (id != null && id.isBlank()) || host.chars().anyMatch(Character::isWhitespace)) {
      throw malformed(entry, source);
    }
    try {
      return new ClusterNode(id == null ? host : id, host, port);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Bad node entry '" + entry + "' in " + source + ": " + e.getMessage(), e);
    }
  }

  private static IllegalArgumentException malformed(String entry, String source) {
    return new IllegalArgumentException("Bad node entry '" + entry + "' in " + source
        + ": expected host, host:port, id=host or id=host:port ([v6 literal]:port)");
  }
}
