package io.rubix.bookkeeper.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.bookkeeper.fetch.OwnerFetcher;
import io.rubix.core.CacheEngine;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.peer.PeerClient;
import io.rubix.core.peer.PeerConfig;
import io.rubix.core.peer.PeerFetchConfig;
import io.rubix.core.peer.PeerReader.PeerBlock;
import io.rubix.core.peer.PeerReader.Transfer;
import io.rubix.core.peer.TransferTlsConfig;
import io.rubix.core.read.session.Source;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.testing.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the data-transfer port, over real sockets: the real {@link TransferServer} on 127.0.0.2 (an
 * ephemeral port, filling from an in-memory source) and {@link PeerClient}s reading as node1 of a
 * static ring with node2 (127.0.0.2) as the owner. Certificates are made at test time with keytool:
 * authority {@code cluster-ca} signs node certificates for 127.0.0.1-3 and a "wrong host" one for
 * 127.0.0.9, and a self-signed one is trusted by no one.
 */
class TransferTlsTest {
  private static final int BLOCK = 4096;
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  @TempDir
  static Path certificates;
  private static Path nodeKeys;
  private static Path wrongHostKeys;
  private static Path untrustedKeys;
  private static Path trustStore;

  @TempDir
  Path tmp;
  private InProcessMetadataService service;
  private CacheEngine engine;
  private final List<ClusterLocality> rings = new ArrayList<>();
  private final List<TransferServer> owners = new ArrayList<>();
  private ObjectVersion version;

  @BeforeAll
  static void makeCertificates() throws Exception {
    TestCertificates stores = new TestCertificates(certificates);
    TestCertificates.Authority authority = stores.authority("cluster-ca");
    nodeKeys = authority.keyStore("node", "ip:127.0.0.1,ip:127.0.0.2,ip:127.0.0.3");
    wrongHostKeys = authority.keyStore("elsewhere", "ip:127.0.0.9");
    untrustedKeys = stores.selfSigned("stranger", "ip:127.0.0.1,ip:127.0.0.2");
    trustStore = authority.trustStore();
  }

  @BeforeEach
  void start() throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", tmp.toString());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.jmx.enabled", "false");
    service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(tmp), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(60)).build());
    engine = CacheEngine.withService(CacheConfig.from(conf), service, "test", ChannelOpener.DEFAULT);
    version = new ObjectVersion(pathOwnedByNode2(ring()), 4L * BLOCK, 1, "\"e\"");
  }

  @AfterEach
  void stop() throws IOException {
    owners.forEach(TransferServer::close);
    rings.forEach(ClusterLocality::close);
    engine.close();
    service.close();
  }

  /** A new ring of node1 (this reader, 127.0.0.1) and node2 (127.0.0.2): a failed peer is down in its ring only. */
  private ClusterLocality ring() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", "node1=127.0.0.1:1,node2=127.0.0.2:1");
    conf.set("rubix.cluster.node.id", "node1");
    conf.set("rubix.cache.filesplit.size", "1m");
    conf.set("rubix.cache.jmx.enabled", "false");
    ClusterLocality ring = ClusterSetup.locality(conf);
    rings.add(ring);
    return ring;
  }

  private static String pathOwnedByNode2(ClusterLocality ring) {
    for (int i = 0; ; i++) {
      String path = "s3a://bucket/object-" + i;
      if (ring.ownerOf(path, 0).orElseThrow().id().equals("node2")) {
        return path;
      }
    }
  }

  /** TLS settings: {@code keyStore} (or none), the cluster's trust store, {@code clientAuth}. */
  private static TransferTlsConfig tls(Path keyStore, String clientAuth) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.network.transfer.tls.enabled", "true");
    if (keyStore != null) {
      conf.set("rubix.network.transfer.tls.keystore.path", keyStore.toString());
      conf.set("rubix.network.transfer.tls.keystore.password", TestCertificates.PASSWORD);
    }
    conf.set("rubix.network.transfer.tls.truststore.path", trustStore.toString());
    conf.set("rubix.network.transfer.tls.truststore.password", TestCertificates.PASSWORD);
    conf.set("rubix.network.transfer.tls.client.auth", clientAuth);
    return TransferTlsConfig.from(conf);
  }

  private static final Source SOURCE = (position, buffer, offset, length) -> {
    for (int i = 0; i < length; i++) {
      buffer[offset + i] = (byte) (position + i);
    }
  };

  private static byte[] expected(int first, int end) {
    byte[] bytes = new byte[(end - first) * BLOCK];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) ((long) first * BLOCK + i);
    }
    return bytes;
  }

  /** The owner on 127.0.0.2 and an ephemeral port, with {@code threads} workers, filling blocks from {@link #SOURCE}. */
  private TransferServer owner(TransferTlsConfig tls, String secret, int threads) throws IOException {
    PeerFetchConfig fetch = new PeerFetchConfig(true, 2, TIMEOUT, 1 << 20, Set.of("s3a"), 0);
    OwnerFetcher fetcher = new OwnerFetcher(fetch, BLOCK, engine.filler(), v -> SOURCE, engine.stats(), Duration.ofSeconds(30), System::nanoTime);
    TransferServer owner = new TransferServer(service, "127.0.0.2", new PeerConfig(true, 0, secret, TIMEOUT, threads, tls), fetcher);
    owners.add(owner);
    return owner;
  }

  /** A reader as node1 of a ring of its own. */
  private PeerClient reader(TransferServer owner, TransferTlsConfig tls, String secret, ClusterLocality ring) {
    PeerConfig config = new PeerConfig(true, owner.port(), secret, TIMEOUT, 1, tls);
    return new PeerClient(config, new PeerFetchConfig(true, 2, TIMEOUT, 1 << 20, Set.of("s3a"), 0), ring);
  }

  private static byte[] concat(List<PeerBlock> blocks) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (PeerBlock block : blocks) {
      bytes.write(block.bytes(), block.offset(), block.length());
    }
    return bytes.toByteArray();
  }

  private void assertServed(TransferServer owner, TransferTlsConfig tls, String secret, int first, int end) {
    Transfer transfer = reader(owner, tls, secret, ring()).fetch(version, BLOCK, first, end);
    assertThat(transfer.failed()).as("a TLS read of blocks [%s, %s) failed", first, end).isFalse();
    assertThat(concat(transfer.served())).isEqualTo(expected(first, end));
  }

  /** What the reader of a failed TLS read sees: no byte, and the owner out of its ring, so its read goes to the source. */
  private void assertRefused(TransferServer owner, TransferTlsConfig tls) {
    ClusterLocality ring = ring();
    Transfer transfer = reader(owner, tls, null, ring).fetch(version, BLOCK, 0, 2);
    assertThat(transfer.failed()).isTrue();
    assertThat(transfer.served()).isEmpty();
    assertThat(ring.liveness().isDown("node2")).as("the owner is a failed peer").isTrue();
  }

  /** Waits (polling, bounded) for a counter the server bumps after it closed a connection, which the client may see first. */
  private static void awaitAtLeast(String what, long expected, LongSupplier counter) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (counter.getAsLong() < expected) {
      assertThat(System.nanoTime()).as("%s reached %s (now %s)", what, expected, counter.getAsLong()).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void peerReadsOverTlsReturnTheBytesWithAndWithoutASecretAndMutually() throws Exception {
    TransferServer owner = owner(tls(nodeKeys, "none"), null, 2);
    // a reader without a key store of its own: the owner does not ask for one
    assertServed(owner, tls(null, "none"), null, 0, 4);
    assertServed(owner, tls(nodeKeys, "none"), null, 1, 3);
    assertThat(owner.bytesServed()).isEqualTo(6L * BLOCK);
    assertThat(owner.refusedHandshakes()).isZero();

    TransferServer mutual = owner(tls(nodeKeys, "required"), "s3cret", 2);
    assertServed(mutual, tls(nodeKeys, "required"), "s3cret", 0, 4);
    assertThat(mutual.unauthorized()).isZero();
    // the secret is still checked inside TLS
    assertRefused(mutual, tls(nodeKeys, "required"));
    assertThat(mutual.unauthorized()).isEqualTo(1);
    assertThat(mutual.refusedHandshakes()).isZero();
  }

  @Test
  void plaintextGarbageAndSilentClientsAreRefusedAndTheServerKeepsServing() throws Exception {
    // two workers, and one connection at a time: a connection that held its worker for good would show as a refused one
    TransferServer owner = owner(tls(nodeKeys, "none"), null, 2);
    assertRefused(owner, TransferTlsConfig.DISABLED);
    awaitAtLeast("refused handshakes after a plaintext reader", 1, owner::refusedHandshakes);

    Random random = new Random(11);
    for (int i = 0; i < 20; i++) {
      byte[] garbage = new byte[2 + random.nextInt(600)];
      random.nextBytes(garbage);
      if (i % 4 == 0) {
        // the first bytes of a TLS handshake record, then garbage
        garbage[0] = 0x16;
        garbage[1] = 0x03;
      }
      try (Socket socket = connect(owner)) {
        socket.getOutputStream().write(garbage);
        socket.shutdownOutput();
        socket.getInputStream().readAllBytes();
      } catch (IOException expected) {
        // reset or closed: either is a refusal
      }
      awaitAtLeast("refused handshakes after garbage", 2 + i, owner::refusedHandshakes);
    }

    // a client that connects and says nothing (or trickles) is closed at the handshake deadline, the timeout
    try (Socket silent = connect(owner)) {
      long started = System.nanoTime();
      InputStream in = silent.getInputStream();
      int read;
      try {
        read = in.read();
      } catch (IOException closed) {
        read = -1;
      }
      assertThat(read).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(TIMEOUT.multipliedBy(3));
    }
    awaitAtLeast("refused handshakes after a silent client", 22, owner::refusedHandshakes);

    assertServed(owner, tls(null, "none"), null, 0, 4);
    assertThat(owner.refused()).as("connections turned away for want of a worker").isZero();
  }

  @Test
  void mutualTlsRefusesReadersWithoutATrustedCertificate() throws Exception {
    TransferServer owner = owner(tls(nodeKeys, "required"), null, 2);
    // no certificate at all (a reader configured without client.auth=required has no key store)
    assertRefused(owner, tls(null, "none"));
    // a certificate the owner's trust store does not vouch for
    assertRefused(owner, tls(untrustedKeys, "required"));
    awaitAtLeast("refused handshakes", 2, owner::refusedHandshakes);
    assertThat(owner.requests()).as("no request was read").isZero();
    assertServed(owner, tls(nodeKeys, "required"), null, 0, 4);
  }

  @Test
  void readersRefuseOwnersWithAnUntrustedOrWrongHostCertificateOrWithoutTls() throws Exception {
    assertRefused(owner(tls(untrustedKeys, "none"), null, 2), tls(null, "none"));
    // signed by the cluster's authority, but for 127.0.0.9: someone else's certificate
    assertRefused(owner(tls(wrongHostKeys, "none"), null, 2), tls(null, "none"));
    TransferServer plaintext = owner(TransferTlsConfig.DISABLED, null, 2);
    assertRefused(plaintext, tls(null, "none"));
    awaitAtLeast("bad requests of the plaintext owner", 1, plaintext::badRequests);
    assertThat(plaintext.requests()).isZero();
  }

  private static Socket connect(TransferServer owner) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.2", owner.port()), (int) TIMEOUT.toMillis());
    socket.setSoTimeout((int) TIMEOUT.multipliedBy(4).toMillis());
    return socket;
  }
}
