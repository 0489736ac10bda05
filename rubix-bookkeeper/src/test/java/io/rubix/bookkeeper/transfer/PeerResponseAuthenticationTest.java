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
import io.rubix.spi.wire.TransferProtocol;
import io.rubix.spi.wire.TransferProtocol.Request;
import io.rubix.spi.wire.TransferProtocol.Status;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Responses of the data-transfer port are authenticated when a secret is set: the real
 * {@link PeerClient} against a hand-written owner on 127.0.0.2 that answers forged bytes with
 * matching CRC32Cs, against a proxy that replays a real owner's recorded response for a new request,
 * and against the real {@link TransferServer} (filling from an in-memory source) for the round trip.
 * The reader is node1 (127.0.0.1), the owner node2 (127.0.0.2); both use one transfer port.
 */
class PeerResponseAuthenticationTest {
  private static final int BLOCK = 4096;
  private static final String SECRET = "right";
  @TempDir
  Path tmp;
  private InProcessMetadataService service;
  private CacheEngine engine;
  private ServerSocket fake;
  private final ExecutorService fakeThreads = Executors.newCachedThreadPool();
  private ClusterLocality locality;
  private ObjectVersion version;

  @BeforeEach
  void start() throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", tmp.toString());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.jmx.enabled", "false");
    service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(tmp), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(60)).build());
    engine = CacheEngine.withService(CacheConfig.from(conf), service, "test", ChannelOpener.DEFAULT);
    fake = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.2"));
    locality = locality();
    version = new ObjectVersion(pathOwnedByNode2(), 4L * BLOCK, 1, "\"e\"");
  }

  @AfterEach
  void stop() throws IOException {
    fakeThreads.shutdownNow();
    fake.close();
    locality.close();
    engine.close();
    service.close();
  }

  private ClusterLocality locality() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", "node1=127.0.0.1:1,node2=127.0.0.2:1");
    conf.set("rubix.cluster.node.id", "node1");
    conf.set("rubix.cache.filesplit.size", "1m");
    conf.set("rubix.cache.jmx.enabled", "false");
    return ClusterSetup.locality(conf);
  }

  private String pathOwnedByNode2() {
    for (int i = 0; ; i++) {
      String path = "s3a://bucket/object-" + i;
      if (locality.ownerOf(path, 0).orElseThrow().id().equals("node2")) {
        return path;
      }
    }
  }

  private int port() {
    return fake.getLocalPort();
  }

  private PeerClient client(String secret, boolean fill) {
    PeerConfig config = new PeerConfig(true, port(), secret, Duration.ofSeconds(5), 1, TransferTlsConfig.DISABLED);
    return new PeerClient(config, new PeerFetchConfig(fill, 2, Duration.ofSeconds(5), 1 << 20, Set.of("s3a"), 0), locality);
  }

  /** The source of every object: each byte is its offset. */
  private static byte[] expected(int first, int end) {
    byte[] bytes = new byte[(end - first) * BLOCK];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) ((long) first * BLOCK + i);
    }
    return bytes;
  }

  private static final Source SOURCE = (position, buffer, offset, length) -> {
    for (int i = 0; i < length; i++) {
      buffer[offset + i] = (byte) (position + i);
    }
  };

  /** The real owner: a transfer server on {@code host} and the fake's port that fills blocks from {@link #SOURCE}. */
  private TransferServer owner(String host, String secret) throws IOException {
    PeerFetchConfig config = new PeerFetchConfig(true, 2, Duration.ofSeconds(5), 1 << 20, Set.of("s3a"), 0);
    OwnerFetcher fetcher = new OwnerFetcher(config, BLOCK, engine.filler(), v -> SOURCE, engine.stats(), Duration.ofSeconds(30), System::nanoTime);
    return new TransferServer(service, host, new PeerConfig(true, port(), secret, Duration.ofSeconds(5), 2, TransferTlsConfig.DISABLED), fetcher);
  }

  private static byte[] concat(List<PeerBlock> blocks) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (PeerBlock block : blocks) {
      bytes.write(block.bytes(), block.offset(), block.length());
    }
    return bytes.toByteArray();
  }

  /** Answers the next connection to the fake owner with {@code answer(request bytes)}. */
  private Future<byte[]> answerOnce(java.util.function.Function<Request, byte[]> answer) {
    return fakeThreads.submit(() -> {
      try (Socket socket = fake.accept()) {
        Request request = TransferProtocol.decode(new DataInputStream(socket.getInputStream()), null).request();
        byte[] response = answer.apply(request);
        socket.getOutputStream().write(response);
        socket.shutdownOutput();
        return response;
      }
    });
  }

  /** An OK response with {@code fill} for every byte of the blocks asked for, their true CRC32Cs, and {@code tag} after each block and the end. */
  private byte[] forged(Request request, byte fill, byte[] tag) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DataOutputStream data = new DataOutputStream(out);
    try {
      data.write(TransferProtocol.encodeStatus(Status.OK));
      for (int i = 0; i < request.blockCount(); i++) {
        byte[] block = new byte[request.version().blockLength(request.firstBlock() + i, BLOCK)];
        Arrays.fill(block, fill);
        CRC32C crc = new CRC32C();
        crc.update(block);
        data.writeInt(block.length);
        data.write(block);
        data.writeInt(TransferProtocol.BLOCK_END);
        data.writeInt((int) crc.getValue());
        data.write(tag);
      }
      data.writeInt(TransferProtocol.END);
      data.write(tag);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private void assertRejected(Transfer transfer) {
    assertThat(transfer.served()).as("no byte of a forged response reaches the reader").isEmpty();
    assertThat(transfer.failed()).isTrue();
    assertThat(locality.liveness().isDown("node2")).as("the owner that answered it is down").isTrue();
  }

  @Test
  void forgedBytesWithMatchingChecksumsAndAWrongMacAreRejected() throws Exception {
    byte[] wrongMac = new byte[1 + TransferProtocol.MAC_BYTES];
    wrongMac[0] = TransferProtocol.MAC_BYTES;
    Future<byte[]> answered = answerOnce(request -> forged(request, (byte) 'X', wrongMac));
    PeerClient client = client(SECRET, false);
    Transfer transfer = client.fetch(version, BLOCK, 0, 2);
    answered.get(10, TimeUnit.SECONDS);
    assertRejected(transfer);
    assertThat(client.badResponses()).isEqualTo(1);
  }

  @Test
  void forgedBytesWithMatchingChecksumsAndNoMacAreRejected() throws Exception {
    Future<byte[]> answered = answerOnce(request -> forged(request, (byte) 'X', new byte[] {0}));
    PeerClient client = client(SECRET, false);
    Transfer transfer = client.fetch(version, BLOCK, 0, 2);
    answered.get(10, TimeUnit.SECONDS);
    assertRejected(transfer);
    assertThat(client.badResponses()).isEqualTo(1);
  }

  @Test
  void anUnauthenticatedNotCachedIsAFailureOfThePeerWithASecret() throws Exception {
    Future<byte[]> answered = answerOnce(request -> {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes(TransferProtocol.encodeStatus(Status.NOT_CACHED));
      out.write(0);
      return out.toByteArray();
    });
    PeerClient client = client(SECRET, false);
    Transfer transfer = client.fetch(version, BLOCK, 0, 2);
    answered.get(10, TimeUnit.SECONDS);
    assertRejected(transfer);
    assertThat(client.badResponses()).isEqualTo(1);
  }

  @Test
  void aRecordedResponseReplayedForAnotherRequestIsRejected() throws Exception {
    // the real owner listens on 127.0.0.3; the fake on 127.0.0.2 forwards the first request and records the answer
    try (TransferServer owner = owner("127.0.0.3", SECRET)) {
      Future<byte[]> recorded = fakeThreads.submit(() -> {
        try (Socket socket = fake.accept(); Socket upstream = new Socket()) {
          upstream.connect(new InetSocketAddress("127.0.0.3", owner.port()), 5_000);
          InputStream in = socket.getInputStream();
          // forward the request byte for byte: read it whole through a copying decoder
          byte[] frame = RequestFrames.read(new DataInputStream(in));
          upstream.getOutputStream().write(frame);
          byte[] response = upstream.getInputStream().readAllBytes();
          OutputStream out = socket.getOutputStream();
          out.write(response);
          socket.shutdownOutput();
          return response;
        }
      });
      PeerClient client = client(SECRET, true);
      Transfer first = client.fetch(version, BLOCK, 0, 2);
      byte[] response = recorded.get(10, TimeUnit.SECONDS);
      assertThat(concat(first.served())).as("the forwarded answer is genuine").isEqualTo(expected(0, 2));
      assertThat(first.failed()).isFalse();

      // the same blocks asked again: the recorded (valid, but for the first request) answer is replayed
      Future<byte[]> replayed = answerOnce(request -> response);
      Transfer second = client.fetch(version, BLOCK, 0, 2);
      replayed.get(10, TimeUnit.SECONDS);
      assertRejected(second);
      assertThat(client.badResponses()).isEqualTo(1);
    }
  }

  @Test
  void theRealServerRoundTripsWithAndWithoutASecret() throws Exception {
    // the real owner takes the fake's address
    fake.close();
    try (TransferServer owner = owner("127.0.0.2", SECRET)) {
      PeerClient client = client(SECRET, true);
      Transfer transfer = client.fetch(version, BLOCK, 0, 4);
      assertThat(concat(transfer.served())).isEqualTo(expected(0, 4));
      assertThat(transfer.failed()).isFalse();
      assertThat(client.badResponses()).isZero();
      assertThat(owner.requests()).isEqualTo(1);
    }
    try (TransferServer owner = owner("127.0.0.2", null)) {
      PeerClient client = client(null, true);
      Transfer transfer = client.fetch(version, BLOCK, 1, 3);
      assertThat(concat(transfer.served())).isEqualTo(expected(1, 3));
      assertThat(owner.requests()).isEqualTo(1);
      // a reader with a secret does not trust an owner without one: its answers carry no MAC
      PeerClient withSecret = client(SECRET, true);
      assertRejected(withSecret.fetch(version, BLOCK, 1, 3));
      assertThat(withSecret.badResponses()).isEqualTo(1);
    }
  }
}
