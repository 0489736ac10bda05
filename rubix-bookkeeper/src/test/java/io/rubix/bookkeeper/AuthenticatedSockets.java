package io.rubix.bookkeeper;

import io.rubix.core.client.BookKeeperSecret;
import io.rubix.spi.wire.ConnectionAuth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.SecureRandom;

/** Raw sockets to a BookKeeper's Thrift port, past the connection handshake, for tests that speak Thrift bytes themselves. */
final class AuthenticatedSockets {
  private AuthenticatedSockets() {}

  /** The secret file of a BookKeeper whose first cache directory is {@code cacheDir}. */
  static Path secretFile(Path cacheDir) {
    return cacheDir.resolve("bookkeeper").resolve("secret");
  }

  /** A socket connected to {@code port} on 127.0.0.1 that proved it holds the secret of the BookKeeper caching in {@code cacheDir}. */
  static Socket open(Path cacheDir, int port) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(5_000);
      new ConnectionAuth(BookKeeperSecret.read(secretFile(cacheDir)), new SecureRandom())
          .authenticateServer(socket.getInputStream(), socket.getOutputStream());
      return socket;
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }
}
