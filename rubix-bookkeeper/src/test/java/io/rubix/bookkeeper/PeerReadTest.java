package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.PeerFetchKeys;
import io.rubix.spi.config.TransferTlsKeys;
import io.rubix.spi.wire.TransferProtocol;
import io.rubix.testing.S3Server;
import io.rubix.testing.TestCertificates;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three BookKeepers in one JVM on 127.0.0.1, 127.0.0.2 and 127.0.0.3 (one shared transfer port), a
 * static cluster of them ({@link TestCluster}), and readers configured as one of the nodes: blocks of splits another node
 * owns come from that node's cache over its data-transfer port, and from the source when that fails.
 */
class PeerReadTest {
  private static final int BLOCK = 256 * 1024;
  private static final int NODES = 3;
  private static final int SIZE = 3 * 1024 * 1024 + 17;
  private static S3Server s3;
  @TempDir
  Path tmp;
  private TestCluster cluster;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("bucket");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @AfterEach
  void stopNodes() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private void startNodes(String secret) throws Exception {
    startNodes(secret, Map.of());
  }

  /** Nodes with {@code secret} (or none) and {@code settings} for daemons and readers alike. */
  private void startNodes(String secret, Map<String, String> settings) throws Exception {
    TestCluster.Builder builder = TestCluster.builder(tmp, NODES).blockSize(BLOCK)
        // the owner's own credentials, for blocks it fetches from the source for its peers
        .sourceCredentials(s3.s3aConfiguration())
        .daemon(PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name(), "s3a://bucket")
        .client(BookKeeperKeys.TRANSFER_TIMEOUT.name(), "2s");
    if (secret != null) {
      builder.daemon(BookKeeperKeys.TRANSFER_SECRET.name(), secret);
    }
    settings.forEach((key, value) -> builder.daemon(key, value).client(key, value));
    cluster = builder.startInProcess();
  }

  private Configuration clientConf(int node, String secret) {
    Configuration conf = cluster.clientConf(node, s3.s3aConfiguration());
    if (secret != null) {
      conf.set(BookKeeperKeys.TRANSFER_SECRET.name(), secret);
    }
    return conf;
  }

  private static FileSystem fs(Configuration conf) throws IOException {
    return FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
  }

  private static byte[] write(Configuration conf, String path) throws Exception {
    byte[] data = new byte[SIZE];
    new Random(path.hashCode()).nextBytes(data);
    try (FileSystem fs = fs(conf); FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  /** Reads all of {@code path} as the node {@code conf} configures; returns its stats. */
  private static CacheStats read(Configuration conf, String path, byte[] expected) throws Exception {
    byte[] bytes = new byte[SIZE];
    try (FileSystem fs = fs(conf); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, bytes);
      assertThat(bytes).isEqualTo(expected);
      return ((CachingS3AFileSystem) fs).cacheEngine().stats();
    }
  }

  private static ObjectVersion version(Configuration conf, String path) throws IOException {
    try (FileSystem fs = fs(conf)) {
      FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path(path));
      String etag = status instanceof EtagSource source && source.getEtag() != null ? source.getEtag() : "";
      return new ObjectVersion(path, status.getLen(), status.getModificationTime(), etag);
    }
  }

  /** The owner node (1-based) of each block of {@code path}. */
  private int[] owners(String path) {
    ClusterLocality locality = ClusterSetup.locality(clientConf(1, null));
    try {
      int[] owners = new int[(SIZE + BLOCK - 1) / BLOCK];
      for (int b = 0; b < owners.length; b++) {
        ClusterNode owner = locality.ownerOf(path, (long) b * BLOCK).orElseThrow();
        owners[b] = Integer.parseInt(owner.id().substring("node".length()));
      }
      return owners;
    } finally {
      locality.close();
    }
  }

  /** Every node reads the file once, caching the splits it owns; waits until all are committed. */
  private void warm(String path, byte[] data, String secret) throws Exception {
    for (int node = 1; node <= NODES; node++) {
      read(clientConf(node, secret), path, data);
    }
    ObjectVersion version = version(clientConf(1, secret), path);
    int[] owners = owners(path);
    for (int b = 0; b < owners.length; b++) {
      cluster.awaitCached(owners[b], version, b);
    }
  }

  private static long notOwnedBy(int node, int[] owners) {
    long bytes = 0;
    for (int b = 0; b < owners.length; b++) {
      if (owners[b] != node) {
        bytes += Math.min(BLOCK, SIZE - (long) b * BLOCK);
      }
    }
    return bytes;
  }

  /** A path whose splits node 2 owns both in the first and in the second half of the file, and node 1 owns some. */
  private String pathWithMixedOwners(String prefix) {
    for (int i = 0; ; i++) {
      String path = "s3a://bucket/" + prefix + "-" + i + ".bin";
      int[] owners = owners(path);
      int half = owners.length / 2;
      boolean early = false;
      boolean late = false;
      boolean own = false;
      for (int b = 0; b < owners.length; b++) {
        early |= b < half && owners[b] == 2;
        late |= b > half && owners[b] == 2;
        own |= owners[b] == 1;
      }
      if (early && late && own) {
        return path;
      }
    }
  }

  @Test
  void nonOwnerReadsComeFromTheOwnersCache() throws Exception {
    startNodes("s3cret");
    String path = pathWithMixedOwners("peer");
    byte[] data = write(clientConf(1, "s3cret"), path);
    warm(path, data, "s3cret");
    int[] owners = owners(path);

    s3.store().reset();
    CacheStats stats = read(clientConf(1, "s3cret"), path, data);
    assertThat(s3.store().gets()).as("no second GET: every block from a cache").isZero();
    assertThat(stats.get(CacheCounter.PEER_BYTES)).isEqualTo(notOwnedBy(1, owners));
    assertThat(stats.get(CacheCounter.FALLBACK_PEER)).isZero();
    assertThat(stats.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isZero();

    // small sequential reads: each block crosses from its owner once
    long servedBefore = transferBytesServed();
    try (FileSystem fs = fs(clientConf(1, "s3cret")); InputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
      byte[] buffer = new byte[10_000];
      for (int n; (n = in.read(buffer)) > 0; ) {
        all.write(buffer, 0, n);
      }
      assertThat(all.toByteArray()).isEqualTo(data);
    }
    assertThat(transferBytesServed() - servedBefore).isEqualTo(notOwnedBy(1, owners));

    // differential: random ranges through peers equal the source's bytes
    Random random = new Random(7);
    try (FileSystem fs = fs(clientConf(3, "s3cret")); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      for (int i = 0; i < 200; i++) {
        int offset = random.nextInt(SIZE);
        int length = 1 + random.nextInt(Math.min(SIZE - offset, 3 * BLOCK));
        byte[] bytes = new byte[length];
        in.readFully(offset, bytes);
        assertThat(bytes).isEqualTo(java.util.Arrays.copyOfRange(data, offset, offset + length));
      }
      assertThat(((CachingS3AFileSystem) fs).cacheEngine().stats().get(CacheCounter.PEER_BYTES)).isPositive();
    }
    assertThat(s3.store().gets()).isZero();
  }

  @Test
  void ownerStoppedMidReadMeansItsRunnerUpOrTheSource() throws Exception {
    startNodes(null);
    String path = pathWithMixedOwners("stop");
    byte[] data = write(clientConf(1, null), path);
    warm(path, data, null);
    int blocks = (SIZE + BLOCK - 1) / BLOCK;
    int half = blocks / 2 * BLOCK;
    try (FileSystem fs = fs(clientConf(1, null)); InputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      byte[] first = in.readNBytes(half);
      assertThat(first).isEqualTo(java.util.Arrays.copyOf(data, half));
      CacheStats stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
      long peerBytes = stats.get(CacheCounter.PEER_BYTES);
      assertThat(peerBytes).isPositive();
      cluster.stop(2);
      byte[] rest = in.readAllBytes();
      assertThat(rest).isEqualTo(java.util.Arrays.copyOfRange(data, half, SIZE));
      assertThat(((CachingS3AFileSystem) fs).clusterLocality().liveness().isDown("node2")).isTrue();
      // node 2's blocks after the stop: from its runner-up, asked in its place (node 3), or from the source (node 1's own, not cached for a read that began as a peer read)
      assertThat(stats.get(CacheCounter.PEER_BYTES) - peerBytes + stats.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isPositive();
    }
  }

  @Test
  void wrongOrMissingSecretIsRefusedAndReadsFallBack() throws Exception {
    startNodes("right");
    String path = null;
    int[] owners = null;
    for (String secret : new String[] {"wrong", null}) {
      // a file of its own per secret: node 1 caches what it reads once it took the refusing owners' places
      path = pathWithMixedOwners("secret-" + secret);
      byte[] data = write(clientConf(1, "right"), path);
      warm(path, data, "right");
      owners = owners(path);
      CacheStats stats = read(clientConf(1, secret), path, data);
      assertThat(stats.get(CacheCounter.PEER_BYTES)).isZero();
      assertThat(stats.get(CacheCounter.FALLBACK_PEER)).isPositive();
      // a refusing owner is reported down at once, so its splits become node 1's own: what no owner served
      // comes from the source, through node 1's cache when node 1 took the owner's place (a later read
      // finds it there), else uncached
      assertThat(stats.get(CacheCounter.SOURCE_BYTES) + stats.get(CacheCounter.HIT_BYTES)).isGreaterThanOrEqualTo(SIZE);
      assertThat(stats.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isLessThanOrEqualTo(notOwnedBy(1, owners));
    }
    ObjectVersion version = version(clientConf(1, "right"), path);
    int owned = firstBlockOf(2, owners);
    TransferProtocol.Request request = new TransferProtocol.Request(version, BLOCK, owned, 1);
    assertThat(exchange(2, TransferProtocol.encode(request, "wrong".getBytes(java.nio.charset.StandardCharsets.UTF_8))))
        .isEqualTo(TransferProtocol.Status.UNAUTHORIZED);
    assertThat(exchange(2, TransferProtocol.encode(request, null))).isEqualTo(TransferProtocol.Status.UNAUTHORIZED);
    assertThat(exchange(2, TransferProtocol.encode(request, "right".getBytes(java.nio.charset.StandardCharsets.UTF_8))))
        .isEqualTo(TransferProtocol.Status.OK);
    assertThat(cluster.bookKeeper(2).stats().get("rubix_transfer_unauthorized_requests")).isGreaterThanOrEqualTo(2);
  }

  @Test
  void peerReadsGoOverMutualTlsAndReadersThatCannotTalkTlsToTheOwnersReadTheSource() throws Exception {
    TestCertificates stores = new TestCertificates(Files.createDirectories(tmp.resolve("tls")));
    TestCertificates.Authority authority = stores.authority("cluster-ca");
    Path nodeKeys = authority.keyStore("nodes", "ip:127.0.0.1,ip:127.0.0.2,ip:127.0.0.3");
    Path otherTrust = stores.authority("other-ca").trustStore();
    startNodes("s3cret", Map.of(
        TransferTlsKeys.ENABLED.name(), "true",
        TransferTlsKeys.KEYSTORE_PATH.name(), nodeKeys.toString(),
        TransferTlsKeys.KEYSTORE_PASSWORD.name(), TestCertificates.PASSWORD,
        TransferTlsKeys.TRUSTSTORE_PATH.name(), authority.trustStore().toString(),
        TransferTlsKeys.TRUSTSTORE_PASSWORD.name(), TestCertificates.PASSWORD,
        TransferTlsKeys.CLIENT_AUTH.name(), "required"));
    String path = pathWithMixedOwners("tls");
    byte[] data = write(clientConf(1, "s3cret"), path);
    warm(path, data, "s3cret");
    int[] owners = owners(path);

    s3.store().reset();
    CacheStats stats = read(clientConf(1, "s3cret"), path, data);
    assertThat(s3.store().gets()).as("every block from a cache, the others' over TLS").isZero();
    assertThat(stats.get(CacheCounter.PEER_BYTES)).isEqualTo(notOwnedBy(1, owners));
    assertThat(stats.get(CacheCounter.FALLBACK_PEER)).isZero();

    // a reader that trusts another authority, and a plaintext one: each on a file of its own (see wrongOrMissingSecret...)
    Configuration untrusting = clientConf(1, "s3cret");
    untrusting.set(TransferTlsKeys.TRUSTSTORE_PATH.name(), otherTrust.toString());
    Configuration plaintext = clientConf(1, "s3cret");
    plaintext.set(TransferTlsKeys.ENABLED.name(), "false");
    for (Configuration reader : List.of(untrusting, plaintext)) {
      path = pathWithMixedOwners("tls-refused-" + reader.get(TransferTlsKeys.ENABLED.name()));
      data = write(clientConf(1, "s3cret"), path);
      warm(path, data, "s3cret");
      stats = read(reader, path, data);
      assertThat(stats.get(CacheCounter.PEER_BYTES)).isZero();
      assertThat(stats.get(CacheCounter.FALLBACK_PEER)).isPositive();
    }
    long refused = 0;
    for (int node = 2; node <= NODES; node++) {
      refused += cluster.bookKeeper(node).stats().get("rubix_transfer_refused_handshakes");
    }
    assertThat(refused).as("handshakes the owners refused").isGreaterThanOrEqualTo(2);
  }

  @Test
  void malformedFramesAndOtherVersionsAreRefusedAndTheDaemonStaysUp() throws Exception {
    startNodes(null);
    String path = pathWithMixedOwners("garbage");
    byte[] data = write(clientConf(1, null), path);
    warm(path, data, null);
    int[] owners = owners(path);
    ObjectVersion version = version(clientConf(1, null), path);
    int owned = firstBlockOf(2, owners);

    // another version of the object (other mtime) is not cached, whatever its path
    ObjectVersion other = new ObjectVersion(version.path(), version.length(), version.modificationTime() + 1, version.etag());
    assertThat(exchange(2, TransferProtocol.encode(new TransferProtocol.Request(other, BLOCK, owned, 1), null)))
        .isEqualTo(TransferProtocol.Status.NOT_CACHED);
    // blocks outside the object, a wrong block size, too many blocks
    byte[] outside = TransferProtocol.encode(new TransferProtocol.Request(version, BLOCK, owners.length, 1), null);
    assertThat(exchange(2, outside)).isEqualTo(TransferProtocol.Status.BAD_REQUEST);
    assertThat(exchange(2, TransferProtocol.encode(new TransferProtocol.Request(version, BLOCK * 2, 0, 1), null)))
        .isEqualTo(TransferProtocol.Status.BAD_REQUEST);
    ObjectVersion huge = new ObjectVersion(version.path(), 1L << 40, 0, "");
    assertThat(exchange(2, TransferProtocol.encode(new TransferProtocol.Request(huge, BLOCK, 0, TransferProtocol.MAX_BLOCKS + 1), null)))
        .isEqualTo(TransferProtocol.Status.BAD_REQUEST);
    // a path length beyond the bound
    byte[] longPath = TransferProtocol.encode(new TransferProtocol.Request(version, BLOCK, owned, 1), null);
    longPath[10] = (byte) 0xff;
    longPath[11] = (byte) 0xff;
    assertThat(exchange(2, longPath)).isEqualTo(TransferProtocol.Status.BAD_REQUEST);
    // random garbage, truncated frames, connections that say nothing
    Random random = new Random(3);
    for (int i = 0; i < 50; i++) {
      byte[] garbage = new byte[random.nextInt(300)];
      random.nextBytes(garbage);
      if (i % 2 == 0 && garbage.length > 4) {
        System.arraycopy(TransferProtocol.encode(new TransferProtocol.Request(version, BLOCK, owned, 1), null), 0, garbage, 0, 4);
      }
      exchangeQuietly(2, garbage);
    }
    byte[] valid = TransferProtocol.encode(new TransferProtocol.Request(version, BLOCK, owned, 1), null);
    exchangeQuietly(2, java.util.Arrays.copyOf(valid, valid.length / 2));

    assertThat(exchange(2, valid)).isEqualTo(TransferProtocol.Status.OK);
    assertThat(cluster.bookKeeper(2).stats().get("rubix_transfer_bad_requests")).isGreaterThanOrEqualTo(4);
    s3.store().reset();
    CacheStats stats = read(clientConf(1, null), path, data);
    assertThat(stats.get(CacheCounter.PEER_BYTES)).isEqualTo(notOwnedBy(1, owners));
    assertThat(s3.store().gets()).isZero();
  }

  private long transferBytesServed() {
    long served = 0;
    for (int node = 1; node <= NODES; node++) {
      served += cluster.bookKeeper(node).stats().get("rubix_transfer_bytes_served");
    }
    return served;
  }

  private static int firstBlockOf(int node, int[] owners) {
    for (int b = 0; b < owners.length; b++) {
      if (owners[b] == node) {
        return b;
      }
    }
    throw new AssertionError("node " + node + " owns no block");
  }

  /** Sends {@code request} to node {@code node}'s transfer port and returns the response status. */
  private TransferProtocol.Status exchange(int node, byte[] request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(TestCluster.host(node), cluster.transferPort()), 2000);
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      return TransferProtocol.readStatus(new DataInputStream(socket.getInputStream()));
    }
  }

  private void exchangeQuietly(int node, byte[] request) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(TestCluster.host(node), cluster.transferPort()), 2000);
      socket.setSoTimeout(200);
      socket.getOutputStream().write(request);
      socket.shutdownOutput();
      socket.getInputStream().readAllBytes();
    } catch (IOException expected) {
      // closed or timed out: either is fine
    }
  }
}
