package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;

/**
 * An accepted data-transfer connection, opened: where its request comes from, where its answer goes,
 * and what to close once it is answered.
 *
 * @param zeroCopy whether {@code out} is a plaintext socket that cache files may go to with {@code transferTo}
 * @param socket closed when the connection is answered (with TLS: the TLS socket, which says close_notify first)
 */
record Connection(InputStream in, WritableByteChannel out, boolean zeroCopy, Closeable socket) {
  Connection {
    requireNonNull(in, "in is null");
    requireNonNull(out, "out is null");
    requireNonNull(socket, "socket is null");
  }

  /** How an accepted connection is opened: {@link #plaintext}, or after a TLS handshake ({@link TlsHandshakes}). */
  @FunctionalInterface
  interface Opener {
    Connection open(SocketChannel channel) throws IOException;
  }

  /** A plaintext connection: the channel itself. */
  static Connection plaintext(SocketChannel channel) throws IOException {
    return new Connection(channel.socket().getInputStream(), channel, true, channel);
  }
}
