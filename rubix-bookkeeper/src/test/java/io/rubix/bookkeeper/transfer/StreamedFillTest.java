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
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.wire.TransferProtocol;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An owner sends the blocks it fetches for a peer as they arrive from the source, before it commits
 * them (protocol version 4). A real owner ({@link TransferServer} with an {@link OwnerFetcher}) on
 * 127.0.0.2 and a {@link PeerClient} on "node1"; the source is a {@link GatedSource} that can hold its
 * one read at an offset until released, or fail there, so every race is forced with latches.
 */
class StreamedFillTest {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 4;
  private static final long WAIT_SECONDS = 30;
  @TempDir
  Path tmp;
  private InProcessMetadataService service;
  private CacheEngine engine;
  private ClusterLocality locality;
  private ObjectVersion version;
  private Configuration ring;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<OwnerFetcher> fetchers = new java.util.ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", tmp.toString());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.jmx.enabled", "false");
    service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(tmp), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(60)).build());
    engine = CacheEngine.withService(CacheConfig.from(conf), service, "test", ChannelOpener.DEFAULT);
    Configuration ring = new Configuration(false);
    ring.set("rubix.cluster.manager", "static");
    ring.set("rubix.cluster.nodes", "node1=127.0.0.1:1,node2=127.0.0.2:1");
    ring.set("rubix.cluster.node.id", "node1");
    ring.set("rubix.cache.filesplit.size", "1m");
    ring.set("rubix.cache.jmx.enabled", "false");
    this.ring = ring;
    locality = ClusterSetup.locality(ring);
    for (int i = 0; version == null; i++) {
      String path = "s3a://bucket/object-" + i;
      if (locality.ownerOf(path, 0).orElseThrow().id().equals("node2")) {
        version = new ObjectVersion(path, (long) BLOCKS * BLOCK, 1, "\"e\"");
      }
    }
  }

  @AfterEach
  void stop() throws IOException {
    threads.shutdownNow();
    fetchers.forEach(OwnerFetcher::close);
    locality.close();
    engine.close();
    service.close();
  }

  /** The source's bytes: each byte is its offset. */
  private static byte[] expected(int first, int end) {
    byte[] bytes = new byte[(end - first) * BLOCK];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) ((long) first * BLOCK + i);
    }
    return bytes;
  }

  /**
   * A source of {@link #expected} bytes that announces them 1 KiB at a time and, once it has
   * announced the bytes before {@code holdAt}, waits for {@link #release} (and then fails, with
   * {@code fail}); counts its requests.
   */
  private static final class GatedSource implements Source {
    final AtomicInteger requests = new AtomicInteger();
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    private final long holdAt;
    private final boolean fail;

    GatedSource(long holdAt, boolean fail) {
      this.holdAt = holdAt;
      this.fail = fail;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      readFully(position, buffer, offset, length, n -> { });
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
      requests.incrementAndGet();
      int done = 0;
      while (done < length) {
        if (position + done == holdAt) {
          held.countDown();
          try {
            if (!release.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
              throw new IOException("Not released");
            }
          } catch (InterruptedException e) {
            throw new InterruptedIOException();
          }
          if (fail) {
            throw new IOException("Source connection reset at " + holdAt);
          }
        }
        int n = Math.min(1024, length - done);
        if (holdAt > position + done) {
          n = (int) Math.min(n, holdAt - position - done);
        }
        for (int i = 0; i < n; i++) {
          buffer[offset + done + i] = (byte) (position + done + i);
        }
        done += n;
        arrived.accept(done);
      }
    }
  }

  private TransferServer owner(String host, int port, String secret, Source source) throws IOException {
    PeerFetchConfig config = new PeerFetchConfig(true, 2, Duration.ofSeconds(WAIT_SECONDS), 1 << 20, Set.of("s3a"), 0);
    OwnerFetcher fetcher = new OwnerFetcher(config, BLOCK, engine.filler(), v -> source, engine.stats(), Duration.ofSeconds(30), System::nanoTime);
    fetchers.add(fetcher);
    return new TransferServer(service, host, new PeerConfig(true, port, secret, Duration.ofSeconds(WAIT_SECONDS), 4, TransferTlsConfig.DISABLED), fetcher);
  }

  private PeerClient client(int port, String secret) {
    return client(port, secret, locality);
  }

  private PeerClient client(int port, String secret, ClusterLocality ring) {
    PeerConfig config = new PeerConfig(true, port, secret, Duration.ofSeconds(WAIT_SECONDS), 1, TransferTlsConfig.DISABLED);
    return new PeerClient(config, new PeerFetchConfig(true, 2, Duration.ofSeconds(WAIT_SECONDS), 1 << 20, Set.of("s3a"), 0), ring);
  }

  /** Fetches all blocks with {@code client} in another thread; {@code received} completes each block's future as it is handed on. */
  private Future<Transfer> fetch(PeerClient client, Map<Integer, CompletableFuture<PeerBlock>> received) {
    for (int b = 0; b < BLOCKS; b++) {
      received.put(b, new CompletableFuture<>());
    }
    return threads.submit(() -> client.fetch(version, BLOCK, 0, BLOCKS, block -> received.get(block.block()).complete(block)));
  }

  private static byte[] bytes(PeerBlock block) {
    return Arrays.copyOfRange(block.bytes(), block.offset(), block.offset() + block.length());
  }

  private BlockState state(int block) throws IOException {
    return service.status(version, block, block + 1).state(block);
  }

  @Test
  void blocksGoToThePeerAsTheyArriveBeforeTheOwnerCommitsThem() throws Exception {
    for (String secret : new String[] {null, "s3cret"}) {
      service.invalidate(version);
      GatedSource source = new GatedSource(2L * BLOCK + 1000, false);
      try (TransferServer owner = owner("127.0.0.2", 0, secret, source)) {
        Map<Integer, CompletableFuture<PeerBlock>> received = new ConcurrentHashMap<>();
        Future<Transfer> transfer = fetch(client(owner.port(), secret), received);
        assertThat(source.held.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        // the source holds inside block 2: blocks 0 and 1 reach the reader, verified, while nothing is committed
        for (int b = 0; b < 2; b++) {
          assertThat(bytes(received.get(b).get(WAIT_SECONDS, TimeUnit.SECONDS))).as("block %s, secret %s", b, secret).isEqualTo(expected(b, b + 1));
          assertThat(state(b)).isEqualTo(BlockState.IN_FLIGHT);
        }
        assertThat(received.get(2)).isNotDone();
        source.release.countDown();
        Transfer done = transfer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(done.failed()).isFalse();
        assertThat(done.served()).hasSize(BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
          assertThat(bytes(done.served().get(b))).isEqualTo(expected(b, b + 1));
        }
        assertThat(source.requests).as("one source request for the run").hasValue(1);
        BlockRange after = service.awaitInFlight(version, 0, BLOCKS, TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        for (int b = 0; b < BLOCKS; b++) {
          assertThat(after.state(b)).as("block %s is cached once written", b).isEqualTo(BlockState.CACHED);
        }
        assertThat(owner.bytesServed()).isEqualTo((long) BLOCKS * BLOCK);
      }
    }
  }

  @Test
  void aSourceFailureMidStreamEndsTheAnswerKeepsTheVerifiedBlocksAndCachesNothingOfTheRun() throws Exception {
    GatedSource source = new GatedSource(BLOCK + BLOCK / 2, true);
    try (TransferServer owner = owner("127.0.0.2", 0, null, source)) {
      Map<Integer, CompletableFuture<PeerBlock>> received = new ConcurrentHashMap<>();
      Future<Transfer> fetched = fetch(client(owner.port(), null), received);
      // the source fails inside block 1, after the reader has block 0
      assertThat(source.held.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      received.get(0).get(WAIT_SECONDS, TimeUnit.SECONDS);
      source.release.countDown();
      Transfer transfer = fetched.get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(transfer.failed()).isTrue();
      assertThat(transfer.served()).as("block 0 was whole and verified; block 1 was cut").hasSize(1);
      assertThat(bytes(transfer.served().get(0))).isEqualTo(expected(0, 1));
      assertThat(transfer.end()).as("the reader reads blocks [1, 4) from the source").isEqualTo(BLOCKS);
      assertThat(received.get(1)).isNotDone();
      assertThat(locality.liveness().isDown("node2")).as("the owner said it stopped: it is not down").isFalse();
      BlockRange after = service.awaitInFlight(version, 0, BLOCKS, TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      for (int b = 0; b < BLOCKS; b++) {
        assertThat(after.state(b)).as("block %s of the failed run", b).isEqualTo(BlockState.MISSING);
      }
    }
  }

  @Test
  void aBlockChangedOnTheWayMidStreamIsNeverHandedOn() throws Exception {
    for (String secret : new String[] {null, "s3cret"}) {
      service.invalidate(version);
      // the reader asks node2 (127.0.0.2), where a proxy flips one byte of block 1 in the real owner's (127.0.0.3) answer
      try (ServerSocket proxy = new ServerSocket(0, 8, InetAddress.getByName("127.0.0.2"));
          TransferServer owner = owner("127.0.0.3", proxy.getLocalPort(), secret, new GatedSource(-1, false))) {
        Future<?> forwarded = threads.submit(() -> {
          try (Socket in = proxy.accept(); Socket out = new Socket()) {
            out.connect(new InetSocketAddress("127.0.0.3", owner.port()), 5_000);
            out.getOutputStream().write(RequestFrames.read(new DataInputStream(in.getInputStream())));
            try {
              tamperWithBlock1(new DataInputStream(out.getInputStream()), new DataOutputStream(in.getOutputStream()));
            } catch (java.net.SocketException e) {
              // the reader hung up at the block it rejected
            }
          }
          return null;
        });
        try (ClusterLocality reader = ClusterSetup.locality(ring)) {
          PeerClient client = client(proxy.getLocalPort(), secret, reader);
          Map<Integer, CompletableFuture<PeerBlock>> received = new ConcurrentHashMap<>();
          Transfer transfer = fetch(client, received).get(WAIT_SECONDS, TimeUnit.SECONDS);
          forwarded.get(WAIT_SECONDS, TimeUnit.SECONDS);
          assertThat(transfer.served()).as("secret %s", secret).hasSize(1);
          assertThat(bytes(transfer.served().get(0))).isEqualTo(expected(0, 1));
          assertThat(received.get(1)).as("no byte of block 1 reaches the reader").isNotDone();
          assertThat(transfer.failed()).isTrue();
          assertThat(client.badResponses()).isEqualTo(1);
          assertThat(reader.liveness().isDown("node2")).as("an owner whose answer fails verification leaves the ring").isTrue();
        }
      }
    }
  }

  @Test
  void whenTheOwnerIsDeadItsRunnerUpIsAskedAndCachesTheBlocksSoTheyCrossFromTheSourceOnce() throws Exception {
    Configuration three = new Configuration(ring);
    three.set("rubix.cluster.nodes", "node1=127.0.0.1:1,node2=127.0.0.2:1,node3=127.0.0.3:1");
    Configuration withoutNode2 = new Configuration(ring);
    withoutNode2.set("rubix.cluster.nodes", "node1=127.0.0.1:1,node3=127.0.0.3:1");
    GatedSource source = new GatedSource(-1, false);
    // node 3 answers on 127.0.0.3; nothing listens on node 2's address (killed)
    try (ClusterLocality reader = ClusterSetup.locality(three); ClusterLocality after = ClusterSetup.locality(withoutNode2);
        TransferServer node3 = owner("127.0.0.3", 0, null, source)) {
      ObjectVersion ofNode2 = null;
      for (int i = 0; ofNode2 == null; i++) {
        String path = "s3a://bucket/failover-" + i;
        if (reader.ownerOf(path, 0).orElseThrow().id().equals("node2") && after.ownerOf(path, 0).orElseThrow().id().equals("node3")) {
          ofNode2 = new ObjectVersion(path, (long) BLOCKS * BLOCK, 1, "\"e\"");
        }
      }
      PeerClient client = client(node3.port(), null, reader);
      Transfer transfer = client.fetch(ofNode2, BLOCK, 0, BLOCKS);
      assertThat(reader.liveness().isDown("node2")).isTrue();
      assertThat(transfer.served()).as("served by node 3 in node 2's place").hasSize(BLOCKS);
      for (int b = 0; b < BLOCKS; b++) {
        assertThat(bytes(transfer.served().get(b))).isEqualTo(expected(b, b + 1));
      }
      assertThat(source.requests).hasValue(1);
      BlockRange cached = service.awaitInFlight(ofNode2, 0, BLOCKS, TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      for (int b = 0; b < BLOCKS; b++) {
        assertThat(cached.state(b)).as("block %s cached on the runner-up", b).isEqualTo(BlockState.CACHED);
      }
    }
  }

  /** Copies an OK answer from {@code owner} to {@code reader}, flipping the first data byte of block 1. */
  private static void tamperWithBlock1(DataInputStream owner, DataOutputStream reader) throws IOException {
    byte[] status = new byte[7];
    owner.readFully(status);
    reader.write(status);
    int block = 0;
    boolean flipped = false;
    while (true) {
      int frame = owner.readInt();
      reader.writeInt(frame);
      if (frame > 0) {
        byte[] data = new byte[frame];
        owner.readFully(data);
        if (block == 1 && !flipped) {
          data[0] ^= 1;
          flipped = true;
        }
        reader.write(data);
        continue;
      }
      if (frame == TransferProtocol.BLOCK_END) {
        reader.writeInt(owner.readInt());
        block++;
      }
      int tag = owner.readUnsignedByte();
      byte[] mac = new byte[tag];
      owner.readFully(mac);
      reader.writeByte(tag);
      reader.write(mac);
      reader.flush();
      if (frame == TransferProtocol.END) {
        return;
      }
    }
  }

  @Test
  void aPeerAskingWhileTheOwnerFetchesJoinsTheStreamAndBothGetEveryByteFromOneSourceRead() throws Exception {
    GatedSource source = new GatedSource(BLOCK + 1000, false);
    try (TransferServer owner = owner("127.0.0.2", 0, null, source)) {
      Map<Integer, CompletableFuture<PeerBlock>> first = new ConcurrentHashMap<>();
      Future<Transfer> firstTransfer = fetch(client(owner.port(), null), first);
      assertThat(source.held.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      first.get(0).get(WAIT_SECONDS, TimeUnit.SECONDS);
      // a second reader asks while block 0 is in memory only and the source holds inside block 1
      Map<Integer, CompletableFuture<PeerBlock>> second = new ConcurrentHashMap<>();
      Future<Transfer> secondTransfer = fetch(client(owner.port(), null), second);
      assertThat(bytes(second.get(0).get(WAIT_SECONDS, TimeUnit.SECONDS))).as("taken from the fetch under way").isEqualTo(expected(0, 1));
      assertThat(state(0)).isEqualTo(BlockState.IN_FLIGHT);
      source.release.countDown();
      for (Future<Transfer> transfer : List.of(firstTransfer, secondTransfer)) {
        Transfer done = transfer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(done.served()).hasSize(BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
          assertThat(bytes(done.served().get(b))).isEqualTo(expected(b, b + 1));
        }
      }
      assertThat(source.requests).as("one source read for both").hasValue(1);
    }
  }
}
