package io.rubix.bookkeeper.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.peer.TransferTls;
import io.rubix.core.peer.TransferTlsConfig;
import io.rubix.testing.TestCertificates;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner's side of a TLS handshake, on the test's thread (so what it counts is known when it returns):
 * what a refused handshake is, and that none outlives the timeout.
 */
class TlsHandshakesTest {
  private static final long TIMEOUT_MILLIS = 500;
  @TempDir
  static Path dir;
  private static TransferTls tls;
  private ServerSocketChannel listener;
  private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
  private final AtomicLong refused = new AtomicLong();
  private TlsHandshakes handshakes;

  @BeforeAll
  static void certificates() throws Exception {
    TestCertificates.Authority authority = new TestCertificates(dir).authority("ca");
    Configuration conf = new Configuration(false);
    conf.set("rubix.network.transfer.tls.enabled", "true");
    conf.set("rubix.network.transfer.tls.keystore.path", authority.keyStore("node", "ip:127.0.0.1").toString());
    conf.set("rubix.network.transfer.tls.keystore.password", TestCertificates.PASSWORD);
    tls = TransferTls.owner(TransferTlsConfig.from(conf));
  }

  @BeforeEach
  void listen() throws IOException {
    listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    handshakes = new TlsHandshakes(tls, watchdog, TIMEOUT_MILLIS, refused);
  }

  @AfterEach
  void stop() throws IOException {
    watchdog.shutdownNow();
    listener.close();
  }

  /** A client connected to the listener, and the server's end of it (read timeout 10 s: the deadline must act first). */
  private SocketChannel accept(Socket client) throws IOException {
    client.connect(listener.getLocalAddress(), 5_000);
    SocketChannel channel = listener.accept();
    channel.socket().setSoTimeout(10_000);
    return channel;
  }

  @Test
  void aConnectionClosedBeforeItsFirstByteIsNoRefusedHandshake() throws IOException {
    Socket probe = new Socket();
    // a TCP connect and close, as NodeLiveness probes
    try (SocketChannel channel = accept(probe)) {
      probe.close();
      assertThatThrownBy(() -> handshakes.open(channel)).isInstanceOf(EOFException.class);
    }
    assertThat(refused).hasValue(0);
  }

  @Test
  void plaintextIsARefusedHandshake() throws IOException {
    try (Socket client = new Socket()) {
      SocketChannel channel = accept(client);
      client.getOutputStream().write(new byte[] {'R', 'B', 'X', 'T', 0, 4});
      try (channel) {
        assertThatThrownBy(() -> handshakes.open(channel)).isInstanceOf(IOException.class);
      }
    }
    assertThat(refused).hasValue(1);
  }

  @Test
  void aSilentOrTricklingClientIsClosedAtTheDeadline() throws IOException {
    for (boolean trickle : new boolean[] {false, true}) {
      try (Socket client = new Socket()) {
        SocketChannel channel = accept(client);
        if (trickle) {
          // the first bytes of a TLS handshake record, and then nothing
          client.getOutputStream().write(new byte[] {0x16, 0x03, 0x03});
        }
        long started = System.nanoTime();
        try (channel) {
          assertThatThrownBy(() -> handshakes.open(channel)).isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(TIMEOUT_MILLIS))
            .isLessThan(Duration.ofSeconds(9));
      }
    }
    assertThat(refused).hasValue(2);
  }
}
