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
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.wire.TransferProtocol;
import io.rubix.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peer fetches: three BookKeepers on 127.0.0.1, .2 and .3 (one shared transfer port) in a static
 * cluster ({@link TestCluster}), each with its own S3 credentials, and readers configured as one of the nodes. A block
 * nobody has cached is fetched from S3 once, by its owner, for every reader that asks; the S3
 * server's own counters (GETs, body bytes) say what crossed the network.
 */
class PeerFetchTest {
  private static final int BLOCK = 256 * 1024;
  private static final int NODES = 3;
  private static final int SIZE = 3 * 1024 * 1024 + 17;
  private static final int BLOCKS = (SIZE + BLOCK - 1) / BLOCK;
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

  @BeforeEach
  void resetS3() {
    s3.store().setFirstByteLatency(Duration.ZERO);
    s3.store().setBandwidth(0);
  }

  @AfterEach
  void stopNodes() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Starts the three nodes; {@code daemon} may change a node's daemon settings. */
  private void startNodes(IntFunction<Map<String, String>> daemon) throws Exception {
    cluster = TestCluster.builder(tmp, NODES).blockSize(BLOCK)
        // the owner's own credentials: it fetches blocks from S3 for its peers
        .sourceCredentials(s3.s3aConfiguration())
        .daemon(PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name(), "s3a://bucket")
        .daemon(daemon)
        .client(BookKeeperKeys.TRANSFER_TIMEOUT.name(), "5s")
        .startInProcess();
  }

  private void startNodes() throws Exception {
    startNodes(node -> Map.of());
  }

  private Configuration clientConf(int node) {
    return clientConf(node, Map.of());
  }

  private Configuration clientConf(int node, Map<String, String> overrides) {
    Configuration conf = cluster.clientConf(node, s3.s3aConfiguration());
    overrides.forEach(conf::set);
    return conf;
  }

  private static FileSystem fs(Configuration conf) throws IOException {
    return FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
  }

  /** Writes random bytes to {@code path} through plain S3A (no cache node hears of it). */
  private static byte[] write(String path, int size, long seed) throws Exception {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    try (FileSystem fs = fs(s3.s3aConfiguration()); FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  private static ObjectVersion version(String path) throws IOException {
    try (FileSystem fs = fs(s3.s3aConfiguration())) {
      FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path(path));
      String etag = status instanceof EtagSource source && source.getEtag() != null ? source.getEtag() : "";
      return new ObjectVersion(path, status.getLen(), status.getModificationTime(), etag);
    }
  }

  /** The owner node (1-based) of each block of {@code path} with {@code splitSize}. */
  private int[] owners(String path, long size, long splitSize) {
    Configuration conf = clientConf(1, Map.of("rubix.cache.filesplit.size", Long.toString(splitSize)));
    ClusterLocality locality = ClusterSetup.locality(conf);
    try {
      int[] owners = new int[(int) ((size + BLOCK - 1) / BLOCK)];
      for (int b = 0; b < owners.length; b++) {
        ClusterNode owner = locality.ownerOf(path, (long) b * BLOCK).orElseThrow();
        owners[b] = Integer.parseInt(owner.id().substring("node".length()));
      }
      return owners;
    } finally {
      locality.close();
    }
  }

  private int[] owners(String path) {
    return owners(path, SIZE, BLOCK);
  }

  /** A path whose blocks are owned by each node, with node 2 owning at least two whole (not the last) blocks. */
  private String pathWithMixedOwners(String prefix) {
    for (int i = 0; ; i++) {
      String path = "s3a://bucket/" + prefix + "-" + i + ".bin";
      int[] owners = owners(path);
      if (count(owners, 1) > 0 && count(Arrays.copyOf(owners, BLOCKS - 1), 2) >= 2 && count(owners, 3) > 0) {
        return path;
      }
    }
  }

  private static int count(int[] owners, int node) {
    return (int) Arrays.stream(owners).filter(o -> o == node).count();
  }

  /** Runs of consecutive blocks with one owner: each is one request, so one GET when it is cold. */
  private static int runs(int[] owners) {
    int runs = 0;
    for (int b = 0; b < owners.length; b++) {
      if (b == 0 || owners[b] != owners[b - 1]) {
        runs++;
      }
    }
    return runs;
  }

  private static long bytesOf(int[] owners, int node, long size) {
    long bytes = 0;
    for (int b = 0; b < owners.length; b++) {
      if (owners[b] == node) {
        bytes += Math.min(BLOCK, size - (long) b * BLOCK);
      }
    }
    return bytes;
  }

  private static CacheStats readAll(Configuration conf, String path, byte[] expected) throws Exception {
    byte[] bytes = new byte[expected.length];
    try (FileSystem fs = fs(conf); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, bytes);
      assertThat(bytes).isEqualTo(expected);
      return ((CachingS3AFileSystem) fs).cacheEngine().stats();
    }
  }

  private long counter(int node, String name) {
    return cluster.bookKeeper(node).stats().getOrDefault(name, 0L);
  }

  private boolean cachedOn(int node, ObjectVersion version, int block) throws IOException {
    return cluster.bookKeeper(node).service().status(version, block, block + 1).state(block) == BlockState.CACHED;
  }

  @Test
  void coldNonOwnerReadIsFetchedOnceByTheOwnersAndThenServedFromTheirCaches() throws Exception {
    startNodes();
    String path = pathWithMixedOwners("cold");
    byte[] data = write(path, SIZE, 1);
    int[] owners = owners(path);
    s3.store().reset();

    CacheStats first = readAll(clientConf(1), path, data);
    assertThat(s3.store().gets()).as("one GET per run of blocks of one owner").isEqualTo(runs(owners));
    assertThat(s3.store().bytesServed()).as("every byte crossed from S3 once").isEqualTo(SIZE);
    assertThat(first.get(CacheCounter.PEER_BYTES)).isEqualTo(SIZE - bytesOf(owners, 1, SIZE));
    assertThat(first.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isZero();
    assertThat(first.get(CacheCounter.FALLBACK_PEER)).isZero();
    ObjectVersion version = version(path);
    for (int b = 0; b < BLOCKS; b++) {
      // the owner sends a block as it arrives and commits it after: wait for the commit
      cluster.awaitCached(owners[b], version, b);
    }
    long fills = counter(2, "rubix_peer_fill_requests") + counter(3, "rubix_peer_fill_requests");
    assertThat(fills).isPositive();
    assertThat(counter(2, "rubix_peer_fill_source_bytes") + counter(3, "rubix_peer_fill_source_bytes")).isEqualTo(SIZE - bytesOf(owners, 1, SIZE));

    // node 3's reader: its own blocks are in its node's cache (filled for node 1), the others come from their owners
    s3.store().reset();
    CacheStats second = readAll(clientConf(3), path, data);
    assertThat(s3.store().gets()).as("no new GET").isZero();
    assertThat(second.get(CacheCounter.PEER_BYTES)).isEqualTo(SIZE - bytesOf(owners, 3, SIZE));
    assertThat(second.get(CacheCounter.HIT_BYTES)).isEqualTo(bytesOf(owners, 3, SIZE));
  }

  @Test
  void withASecretColdBlocksStreamedByTheirOwnersEqualTheSourceAndCrossOnce() throws Exception {
    cluster = TestCluster.builder(tmp, NODES).blockSize(BLOCK)
        .sourceCredentials(s3.s3aConfiguration())
        .daemon(PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name(), "s3a://bucket")
        .daemon(BookKeeperKeys.TRANSFER_SECRET.name(), "peer-secret")
        .client(BookKeeperKeys.TRANSFER_SECRET.name(), "peer-secret")
        .client(BookKeeperKeys.TRANSFER_TIMEOUT.name(), "5s")
        .startInProcess();
    String path = pathWithMixedOwners("secret");
    byte[] data = write(path, SIZE, 12);
    int[] owners = owners(path);
    // a first byte that takes a while: the owners send blocks while later ones are still coming from S3
    s3.store().setFirstByteLatency(Duration.ofMillis(20));
    s3.store().reset();
    CacheStats stats = readAll(clientConf(1), path, data);
    assertThat(s3.store().gets()).as("one GET per run of blocks of one owner").isEqualTo(runs(owners));
    assertThat(s3.store().bytesServed()).isEqualTo(SIZE);
    assertThat(stats.get(CacheCounter.PEER_BYTES)).isEqualTo(SIZE - bytesOf(owners, 1, SIZE));
    assertThat(stats.get(CacheCounter.FALLBACK_PEER)).isZero();
    Random random = new Random(13);
    try (FileSystem fs = fs(clientConf(3)); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      for (int i = 0; i < 50; i++) {
        int offset = random.nextInt(SIZE);
        int length = 1 + random.nextInt(Math.min(SIZE - offset, 3 * BLOCK));
        byte[] bytes = new byte[length];
        in.readFully(offset, bytes);
        assertThat(bytes).as("range %s +%s", offset, length).isEqualTo(Arrays.copyOfRange(data, offset, offset + length));
      }
    }
    assertThat(s3.store().gets()).as("then every block comes from its owner's cache").isEqualTo(runs(owners));
  }

  @Test
  void eightThreadsOnTwoNodesReadingOneColdBlockMakeOneSourceFetch() throws Exception {
    startNodes();
    String path = pathWithMixedOwners("herd");
    byte[] data = write(path, SIZE, 2);
    int[] owners = owners(path);
    int block = 0;
    while (owners[block] != 2) {
      block++;
    }
    long from = (long) block * BLOCK;
    int length = (int) Math.min(BLOCK, SIZE - from);
    // a slow first byte keeps the first transfer in flight while the other threads arrive
    s3.store().setFirstByteLatency(Duration.ofMillis(300));
    s3.store().reset();
    List<FileSystem> fileSystems = List.of(fs(clientConf(1)), fs(clientConf(3)));
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<byte[]>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        FileSystem fs = fileSystems.get(t % 2);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path));
        results.add(threads.submit(() -> {
          try (in) {
            start.await();
            byte[] bytes = new byte[length];
            in.readFully(from, bytes);
            return bytes;
          }
        }));
      }
      start.countDown();
      for (Future<byte[]> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(data, (int) from, (int) from + length));
      }
      assertThat(s3.store().gets()).as("GETs at the S3 server").isEqualTo(1);
      assertThat(s3.store().bytesServed()).isEqualTo(length);
      long coalesced = 0;
      long peerBytes = 0;
      for (FileSystem fs : fileSystems) {
        CacheStats stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
        coalesced += stats.get(CacheCounter.PEER_COALESCED_BLOCKS);
        peerBytes += stats.get(CacheCounter.PEER_BYTES);
      }
      assertThat(peerBytes).as("every thread's bytes came from the owner").isEqualTo(8L * length);
      assertThat(coalesced).as("threads of one node share a transfer").isPositive();
      assertThat(counter(2, "rubix_transfer_requests")).as("owner requests: one per transfer").isEqualTo(8 - coalesced);
      assertThat(counter(2, "rubix_peer_fill_source_requests")).isEqualTo(1);
    } finally {
      threads.shutdownNow();
      for (FileSystem fs : fileSystems) {
        fs.close();
      }
    }
  }

  @Test
  void aVersionTheSourceNoLongerHasIsRefusedAndNeverMixed() throws Exception {
    startNodes();
    String path = pathWithMixedOwners("stale");
    byte[] v1 = write(path, SIZE, 3);
    ObjectVersion version1 = version(path);
    int[] owners = owners(path);
    int[] ofNode2 = java.util.stream.IntStream.range(0, BLOCKS).filter(b -> owners[b] == 2).toArray();
    int warmBlock = ofNode2[0];
    int coldBlock = ofNode2[1];
    try (FileSystem reader = fs(clientConf(1)); FSDataInputStream in = reader.open(new org.apache.hadoop.fs.Path(path))) {
      // node 3 reads one of node 2's blocks of version 1, so node 2 caches it
      try (FileSystem other = fs(clientConf(3)); FSDataInputStream warm = other.open(new org.apache.hadoop.fs.Path(path))) {
        warm.readFully((long) warmBlock * BLOCK, new byte[BLOCK]);
      }
      cluster.awaitCached(2, version1, warmBlock);

      byte[] v2 = write(path, SIZE, 4);
      assertThat(version(path).etag()).isNotEqualTo(version1.etag());
      // the owner refuses to fetch version 1 of the cold block: the source has version 2
      TransferProtocol.Request request = new TransferProtocol.Request(version1, BLOCK, coldBlock, 1, true);
      assertThat(exchange(2, TransferProtocol.encode(request, null))).isEqualTo(TransferProtocol.Status.STALE);
      assertThat(counter(2, "rubix_peer_fill_stale")).isPositive();
      assertThat(cachedOn(2, version1, coldBlock)).isFalse();

      // the stream opened on version 1: the owner's cached block of version 1 is still version 1's bytes
      byte[] warmBytes = new byte[BLOCK];
      in.readFully((long) warmBlock * BLOCK, warmBytes);
      assertThat(warmBytes).isEqualTo(Arrays.copyOfRange(v1, warmBlock * BLOCK, (warmBlock + 1) * BLOCK));
      // the cold block: the owner says STALE, the reader's own GET carries version 1's ETag and fails; never version 2's bytes
      byte[] coldBytes = new byte[BLOCK];
      try {
        in.readFully((long) coldBlock * BLOCK, coldBytes);
        assertThat(coldBytes).isEqualTo(Arrays.copyOfRange(v1, coldBlock * BLOCK, (coldBlock + 1) * BLOCK));
      } catch (IOException e) {
        assertThat(coldBytes).isNotEqualTo(Arrays.copyOfRange(v2, coldBlock * BLOCK, (coldBlock + 1) * BLOCK));
      }
      assertThat(cachedOn(2, version1, coldBlock)).isFalse();
    }
    // a new reader sees version 2, and the owners fetch it
    byte[] v2 = new byte[SIZE];
    new Random(4).nextBytes(v2);
    readAll(clientConf(1), path, v2);
  }

  @Test
  void anOwnerWhoseSourceFailsLeavesTheReaderToTheSource() throws Exception {
    // node 2 has a wrong S3 secret: every fill it tries fails
    startNodes(node -> node == 2 ? Map.of("fs.s3a.secret.key", "wrong") : Map.of());
    String path = pathWithMixedOwners("broken");
    byte[] data = write(path, SIZE, 5);
    int[] owners = owners(path);
    s3.store().reset();
    CacheStats stats = readAll(clientConf(1), path, data);
    assertThat(counter(2, "rubix_peer_fill_failed") + counter(2, "rubix_peer_fill_busy")).isPositive();
    assertThat(stats.get(CacheCounter.FALLBACK_PEER)).isPositive();
    assertThat(stats.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isEqualTo(bytesOf(owners, 2, SIZE));
    assertThat(stats.get(CacheCounter.PEER_BYTES)).isEqualTo(bytesOf(owners, 3, SIZE));
    assertThat(s3.store().bytesServed()).as("each block fetched once, by node 3, node 1 or the reader").isEqualTo(SIZE);
  }

  @Test
  void randomRangesAndSequentialReadsThroughPeersEqualTheSource() throws Exception {
    startNodes();
    String path = pathWithMixedOwners("diff");
    byte[] data = write(path, SIZE, 6);
    s3.store().reset();
    Random random = new Random(11);
    try (FileSystem fs = fs(clientConf(1)); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      for (int i = 0; i < 200; i++) {
        int offset = random.nextInt(SIZE);
        int length = 1 + random.nextInt(Math.min(SIZE - offset, 3 * BLOCK));
        byte[] bytes = new byte[length];
        in.readFully(offset, bytes);
        assertThat(bytes).as("range %s +%s", offset, length).isEqualTo(Arrays.copyOfRange(data, offset, offset + length));
      }
      assertThat(((CachingS3AFileSystem) fs).cacheEngine().stats().get(CacheCounter.PEER_BYTES)).isPositive();
    }
    assertThat(s3.store().bytesServed()).as("no block crossed from S3 twice").isLessThanOrEqualTo(SIZE);

    // a sequential reader with small reads on a cold copy: read-ahead asks the owners ahead of the reads
    String copy = pathWithMixedOwners("diff-seq");
    byte[] copyData = write(copy, SIZE, 7);
    s3.store().reset();
    Configuration sequential = clientConf(3, Map.of("rubix.cache.readahead.max", "1m", "rubix.cache.fetch.chunk.size", Integer.toString(BLOCK),
        "rubix.network.transfer.readahead.max", "1m"));
    try (FileSystem fs = fs(sequential); InputStream in = fs.open(new org.apache.hadoop.fs.Path(copy))) {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buffer = new byte[10_000];
      for (int n; (n = in.read(buffer)) > 0; ) {
        all.write(buffer, 0, n);
      }
      assertThat(all.toByteArray()).isEqualTo(copyData);
      CacheStats stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
      assertThat(stats.get(CacheCounter.PEER_READAHEAD_BLOCKS)).isPositive();
      assertThat(stats.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isZero();
    }
    assertThat(s3.store().bytesServed()).isEqualTo(SIZE);
  }

  @Test
  void requestsOfAnotherProtocolVersionAreRefusedWithAClearStatus() throws Exception {
    startNodes();
    String path = pathWithMixedOwners("version");
    write(path, SIZE, 8);
    s3.store().reset();
    byte[] request = TransferProtocol.encode(new TransferProtocol.Request(version(path), BLOCK, 0, 1, true), null);
    request[5] = 1; // a version 1 peer
    assertThat(exchange(2, request)).isEqualTo(TransferProtocol.Status.UNSUPPORTED_VERSION);
    assertThat(s3.store().gets()).isZero();
  }

  @Test
  void aFillFromAStoreTheOwnerDoesNotNameIsABadRequestAndConnectsNowhere() throws Exception {
    startNodes();
    s3.store().reset();
    for (String path : new String[] {"s3a://other-bucket/object.bin", "s3a://169.254.169.254/latest/meta-data", "gs://bucket/object.bin"}) {
      ObjectVersion version = new ObjectVersion(path, SIZE, 1, "");
      byte[] request = TransferProtocol.encode(new TransferProtocol.Request(version, BLOCK, 0, 1, true), null);
      assertThat(exchange(2, request)).as(path).isEqualTo(TransferProtocol.Status.BAD_REQUEST);
    }
    assertThat(s3.store().gets()).isZero();
    assertThat(counter(2, "rubix_peer_fill_requests")).as("no fill started").isZero();
    // the allowed bucket is still fetched
    String path = pathWithMixedOwners("allowed");
    byte[] data = write(path, SIZE, 9);
    readAll(clientConf(1), path, data);
    assertThat(counter(2, "rubix_peer_fill_requests")).as("the allowed bucket is fetched").isPositive();
  }

  /**
   * Not a pass/fail benchmark: the time of a cold read of one split that another node owns, through
   * the owner, against a direct read with S3A's classic stream, with 30 ms first-byte latency and
   * 100 MB/s per connection at the S3 server. Prints the medians of 3 runs.
   */
  @Test
  void coldSplitThroughTheOwnerVersusDirect() throws Exception {
    startNodes();
    int size = 16 * 1024 * 1024;
    long split = 64L * 1024 * 1024;
    s3.store().setFirstByteLatency(Duration.ofMillis(30));
    s3.store().setBandwidth(100L * 1024 * 1024);
    // the default read-ahead, chunk and peer read-ahead sizes
    Map<String, String> reader = new HashMap<>(Map.of("rubix.cache.filesplit.size", Long.toString(split), "rubix.cache.readahead.max", "16m"));
    long[] viaOwner = new long[3];
    long[] direct = new long[3];
    long[] local = new long[3];
    for (int run = 0; run < 3; run++) {
      String path = null;
      for (int i = 0; path == null; i++) {
        String candidate = "s3a://bucket/bench-" + run + "-" + i + ".bin";
        if (owners(candidate, size, split)[0] == 2) {
          path = candidate;
        }
      }
      byte[] data = write(path, size, 100 + run);
      Configuration plain = s3.s3aConfiguration();
      plain.set("fs.s3a.input.stream.type", "classic");
      direct[run] = timeSequentialRead(plain, path, data);
      viaOwner[run] = timeSequentialRead(clientConf(1, reader), path, data);
      // the owner itself reading the split cold from S3 (what the reader would do without peers): on a fresh copy
      String copy = path + ".copy";
      write(copy, size, 100 + run);
      local[run] = timeSequentialRead(clientConf(2, Map.of("rubix.cache.filesplit.size", Long.toString(split), "rubix.cache.readahead.max", "16m",
          "rubix.cluster.manager", "none")), copy, data);
    }
    Arrays.sort(viaOwner);
    Arrays.sort(direct);
    Arrays.sort(local);
    System.out.printf(java.util.Locale.ROOT, "PEER_FETCH_BENCH cold 16 MiB split owned by another node: via owner %d ms, direct S3A classic %d ms,"
        + " RubiX cold read on one node %d ms; direct/via-owner %.2f, local-cold/via-owner %.2f (medians of 3; 30 ms latency, 100 MB/s)%n",
        viaOwner[1], direct[1], local[1], (double) direct[1] / viaOwner[1], (double) local[1] / viaOwner[1]);
    assertThat(viaOwner[1]).isPositive();
  }

  private static long timeSequentialRead(Configuration conf, String path, byte[] expected) throws Exception {
    try (FileSystem fs = fs(conf)) {
      long start = System.nanoTime();
      ByteArrayOutputStream all = new ByteArrayOutputStream(expected.length);
      try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
          all.write(buffer, 0, n);
        }
      }
      long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(all.toByteArray()).isEqualTo(expected);
      return elapsed;
    }
  }

  /** Sends {@code request} to node {@code node}'s transfer port and returns the response status. */
  private TransferProtocol.Status exchange(int node, byte[] request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(TestCluster.host(node), cluster.transferPort()), 2000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int magic = in.readInt();
      assertThat(magic).isEqualTo(TransferProtocol.MAGIC);
      in.readShort();
      return TransferProtocol.Status.of(in.readUnsignedByte());
    }
  }
}
