package io.rubix.core.cluster;

import io.rubix.spi.cluster.ClusterNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * A node answers when a TCP connection to its data-transfer port (or, without a fixed one, the port of
 * its list entry) opens within the timeout. The connection is closed at once without a byte sent,
 * which the transfer server treats as a connection that ended early: no request, no error counted.
 */
final class TcpConnectProbe implements NodeProbe {
  private final int port;
  private final int timeoutMillis;

  /** @param port the port to connect to, or 0 for each node's own {@link ClusterNode#port()} */
  TcpConnectProbe(int port, Duration timeout) {
    this.port = port;
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
  }

  @Override
  public void check(ClusterNode node) throws IOException {
    int target = port > 0 ? port : node.port();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(node.host(), target), timeoutMillis);
    } catch (IOException e) {
      throw new IOException("No connection to " + node.host() + ":" + target + " within " + timeoutMillis + "ms: " + e, e);
    }
  }
}
