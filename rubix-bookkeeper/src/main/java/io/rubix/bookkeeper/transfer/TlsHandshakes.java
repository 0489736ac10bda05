package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.peer.TransferTls;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens accepted connections with a TLS handshake ({@link TransferTls}) on the transfer worker that
 * serves them. The whole handshake must end within the timeout, or the watchdog closes the connection:
 * a client that says nothing, trickles its handshake or speaks plaintext costs a worker at most that
 * long. A handshake that fails or times out is counted; the first is logged at warn with its reason
 * (a node with the wrong certificates), later ones at debug (scanners must not flood the log).
 * Thread-safe; owns neither the watchdog nor the counter.
 */
final class TlsHandshakes implements Connection.Opener {
  private static final Logger LOG = LoggerFactory.getLogger(TlsHandshakes.class);

  private final TransferTls tls;
  private final ScheduledExecutorService watchdog;
  private final long timeoutMillis;
  private final AtomicLong refused;

  TlsHandshakes(TransferTls tls, ScheduledExecutorService watchdog, long timeoutMillis, AtomicLong refused) {
    this.tls = requireNonNull(tls, "tls is null");
    this.watchdog = requireNonNull(watchdog, "watchdog is null");
    this.timeoutMillis = timeoutMillis;
    this.refused = requireNonNull(refused, "refused is null");
  }

  @Override
  public Connection open(SocketChannel channel) throws IOException {
    // asked first: a failed handshake closes the socket
    String remote = remote(channel);
    ScheduledFuture<?> deadline = watchdog.schedule(() -> close(channel), timeoutMillis, TimeUnit.MILLISECONDS);
    try {
      SSLSocket socket = tls.server(channel.socket());
      return new Connection(socket.getInputStream(), new OutputStreamChannel(socket.getOutputStream()), false, socket);
    } catch (IOException | RuntimeException e) {
      if (refused.incrementAndGet() == 1) {
        LOG.warn("Refused the TLS handshake of {} on the block-transfer port: {} (further refusals are counted in"
            + " rubix_transfer_refused_handshakes and logged at debug)", remote, e.toString());
      } else {
        LOG.debug("Refused the TLS handshake of {}: {}", remote, e.toString());
      }
      throw e;
    } finally {
      deadline.cancel(false);
    }
  }

  private static String remote(SocketChannel channel) {
    try {
      return String.valueOf(channel.getRemoteAddress());
    } catch (IOException e) {
      return "a closed connection";
    }
  }

  private static void close(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }
}
