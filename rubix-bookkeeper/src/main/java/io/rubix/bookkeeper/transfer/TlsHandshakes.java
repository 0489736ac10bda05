package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.peer.TransferTls;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
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
 * (a node with the wrong certificates), later ones at debug (scanners must not flood the log). A
 * connection closed before its first byte (a liveness probe's TCP connect) is not a refused handshake.
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
      int first;
      try {
        first = channel.socket().getInputStream().read();
      } catch (IOException e) {
        throw refused(remote, e);
      }
      if (first < 0) {
        // closed before saying anything, as liveness probes do: not a refused handshake
        throw new EOFException("Connection from " + remote + " closed before its TLS handshake");
      }
      try {
        SSLSocket socket = tls.server(channel.socket(), new ByteArrayInputStream(new byte[] {(byte) first}));
        return new Connection(socket.getInputStream(), new OutputStreamChannel(socket.getOutputStream()), false, socket);
      } catch (IOException e) {
        throw refused(remote, e);
      } catch (RuntimeException e) {
        throw refused(remote, e);
      }
    } finally {
      deadline.cancel(false);
    }
  }

  /** Counts and logs a refused handshake; returns {@code e}. */
  private <E extends Exception> E refused(String remote, E e) {
    if (refused.incrementAndGet() == 1) {
      LOG.warn("Refused the TLS handshake of {} on the block-transfer port: {} (further refusals are counted in"
          + " rubix_transfer_refused_handshakes and logged at debug)", remote, e.toString());
    } else {
      LOG.debug("Refused the TLS handshake of {}: {}", remote, e.toString());
    }
    return e;
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
