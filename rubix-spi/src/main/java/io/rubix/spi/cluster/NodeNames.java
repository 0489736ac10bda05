package io.rubix.spi.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * How node names are compared. Host names are case-insensitive and an FQDN may end with a dot; IP
 * literals have several spellings ({@code ::1}, {@code [0:0::1]}). Every name RubiX compares goes
 * through {@link #normalize} first, so a node listed as {@code Worker-1.example.com.} is the node
 * whose host name is {@code worker-1.example.com}.
 */
public final class NodeNames {
  private NodeNames() {}

  /**
   * Lower case, trimmed, without a trailing dot; an IP literal (IPv6 possibly in brackets) in its
   * canonical text form. Never resolves a name through DNS.
   */
  public static String normalize(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    if (n.startsWith("[") && n.endsWith("]")) {
      n = n.substring(1, n.length() - 1);
    }
    while (n.endsWith(".")) {
      n = n.substring(0, n.length() - 1);
    }
    if (isIpLiteral(n)) {
      try {
        // a literal is parsed, never looked up
        return InetAddress.getByName(n).getHostAddress().toLowerCase(Locale.ROOT);
      } catch (UnknownHostException e) {
        return n;
      }
    }
    return n;
  }

  /** The first label of a host name ({@code worker-1} of {@code worker-1.example.com}); an IP literal itself. */
  public static String shortName(String normalized) {
    if (isIpLiteral(normalized)) {
      return normalized;
    }
    int dot = normalized.indexOf('.');
    return dot < 0 ? normalized : normalized.substring(0, dot);
  }

  static boolean isIpLiteral(String n) {
    if (n.isEmpty()) {
      return false;
    }
    if (n.indexOf(':') >= 0) {
      return n.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.' || c == '%');
    }
    return n.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.') && n.chars().filter(c -> c == '.').count() == 3;
  }
}
