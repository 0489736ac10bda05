package io.rubix.benchmarks;

import io.rubix.bookkeeper.fetch.OwnerFetcher;
import io.rubix.bookkeeper.transfer.TransferServer;
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
import io.rubix.core.peer.TransferTlsConfig;
import io.rubix.core.read.session.Source;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.testing.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What TLS costs a peer read: a reader ({@link PeerClient}, node 1 of a static ring) reads
 * {@value #OBJECT_MIB} MiB of blocks an owner has cached from its {@link TransferServer} on
 * 127.0.0.2, one request per {@value #REQUEST_BLOCKS} blocks of 256 KiB (a 4 MiB fetch chunk), one
 * connection per request as readers make them, each block checked against its CRC32C. {@code transport}:
 * {@code plaintext} (cached blocks go from the file to the socket with transferTo), {@code secret}
 * (rubix.network.transfer.secret: every byte MACed), {@code tls} (TLSv1.3, certificates made with
 * keytool at setup, sessions resumed between requests), {@code tls-secret} (both), {@code mtls-secret}
 * (both, client certificates required). Reader and owner share this JVM and the machine's cores, so the
 * encryption and the decryption are both in the time. An operation is the whole {@value #OBJECT_MIB} MiB:
 * MB/s = {@value #OBJECT_MIB} x 1.048576 / (s/op).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
public class PeerTransferBenchmark {
  static final int OBJECT_MIB = 64;
  private static final int BLOCK = 256 * 1024;
  private static final int REQUEST_BLOCKS = 16;
  private static final int BLOCKS = OBJECT_MIB * (1 << 20) / BLOCK;
  private static final String SECRET = "peer-bench-secret";
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Param({"plaintext", "secret", "tls", "tls-secret", "mtls-secret"})
  public String transport;

  private Path dir;
  private InProcessMetadataService service;
  private CacheEngine engine;
  private TransferServer owner;
  private ClusterLocality ring;
  private PeerClient reader;
  private ObjectVersion version;

  private static final Source SOURCE = (position, buffer, offset, length) -> {
    for (int i = 0; i < length; i++) {
      buffer[offset + i] = (byte) ((position + i) * 31);
    }
  };

  @Setup(Level.Trial)
  public void start() throws Exception {
    dir = BenchFiles.newScratchDir("rubix-peer-transfer-");
    Path cache = Files.createDirectories(dir.resolve("cache"));
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", cache.toString());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.jmx.enabled", "false");
    service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(cache), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(60)).build());
    engine = CacheEngine.withService(CacheConfig.from(conf), service, "bench", ChannelOpener.DEFAULT);
    TransferTlsConfig ownerTls = TransferTlsConfig.DISABLED;
    TransferTlsConfig readerTls = TransferTlsConfig.DISABLED;
    if (transport.contains("tls")) {
      TestCertificates stores = new TestCertificates(Files.createDirectories(dir.resolve("tls")));
      TestCertificates.Authority authority = stores.authority("bench-ca");
      Path keys = authority.keyStore("node", "ip:127.0.0.1,ip:127.0.0.2");
      String clientAuth = transport.startsWith("mtls") ? "required" : "none";
      ownerTls = tls(keys, authority.trustStore(), clientAuth);
      readerTls = tls(transport.startsWith("mtls") ? keys : null, authority.trustStore(), clientAuth);
    }
    String secret = transport.contains("secret") ? SECRET : null;
    PeerFetchConfig fetch = new PeerFetchConfig(true, 4, TIMEOUT, 64L << 20, Set.of("s3a"), 0);
    OwnerFetcher fetcher = new OwnerFetcher(fetch, BLOCK, engine.filler(), v -> SOURCE, engine.stats(), Duration.ofSeconds(30), System::nanoTime);
    owner = new TransferServer(service, "127.0.0.2", new PeerConfig(true, 0, secret, TIMEOUT, 4, ownerTls), fetcher);
    Configuration ringConf = new Configuration(false);
    ringConf.set("rubix.cluster.manager", "static");
    ringConf.set("rubix.cluster.nodes", "node1=127.0.0.1:1,node2=127.0.0.2:1");
    ringConf.set("rubix.cluster.node.id", "node1");
    ringConf.set("rubix.cache.filesplit.size", "1g");
    ringConf.set("rubix.cache.jmx.enabled", "false");
    ring = ClusterSetup.locality(ringConf);
    reader = new PeerClient(new PeerConfig(true, owner.port(), secret, TIMEOUT, 1, readerTls), fetch, ring);
    version = new ObjectVersion(objectOwnedByNode2(), (long) OBJECT_MIB << 20, 1, "\"bench\"");
    // the owner fetches every block once (the fill flag), then serves them from its cache
    if (read() != (long) OBJECT_MIB << 20) {
      throw new IOException("The first read did not get every block");
    }
    awaitCached();
  }

  private static TransferTlsConfig tls(Path keyStore, Path trustStore, String clientAuth) {
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

  private String objectOwnedByNode2() {
    for (int i = 0; ; i++) {
      String path = "s3a://bench/object-" + i;
      if (ring.ownerOf(path, 0).orElseThrow().id().equals("node2")) {
        return path;
      }
    }
  }

  private void awaitCached() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      BlockRange status = service.status(version, 0, BLOCKS);
      int cached = 0;
      for (int b = 0; b < BLOCKS; b++) {
        cached += status.state(b) == BlockState.CACHED ? 1 : 0;
      }
      if (cached == BLOCKS) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("Only " + cached + " of " + BLOCKS + " blocks cached after 120 s");
      }
      Thread.sleep(10);
    }
  }

  /** Reads every block from the owner, request by request; the bytes received. */
  private long read() throws IOException {
    long bytes = 0;
    for (int first = 0; first < BLOCKS; first += REQUEST_BLOCKS) {
      List<PeerBlock> served = reader.fetch(version, BLOCK, first, Math.min(BLOCKS, first + REQUEST_BLOCKS)).served();
      for (PeerBlock block : served) {
        bytes += block.length();
      }
    }
    return bytes;
  }

  @Benchmark
  public long readCachedBlocksFromTheOwner() throws IOException {
    long bytes = read();
    if (bytes != (long) OBJECT_MIB << 20) {
      throw new IOException("Read " + bytes + " bytes from the owner, expected " + ((long) OBJECT_MIB << 20) + " (owner down?)");
    }
    return bytes;
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    System.out.printf("%n%s: owner served %d requests, %d refused handshakes%n", transport, owner.requests(), owner.refusedHandshakes());
    owner.close();
    ring.close();
    engine.close();
    service.close();
    BenchFiles.deleteRecursively(dir);
  }
}
