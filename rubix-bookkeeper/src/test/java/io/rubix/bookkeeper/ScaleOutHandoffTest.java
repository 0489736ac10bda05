package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.ClusterKeys;
import io.rubix.spi.config.PeerFetchKeys;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
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
 * A node joins a cluster whose caches are warm: nodes 1 and 2 cached an object (one split per block),
 * then node 3 joins and reads it. Rendezvous hashing gives node 3 the splits it now outranks the others
 * on; their previous owner (the runner-up) still caches them, so node 3 takes them from there instead of
 * S3 and caches them itself: scale-out fetches nothing from the store again.
 */
class ScaleOutHandoffTest {
  private static final int BLOCK = 1 << 20;
  private static final int OBJECT = 12 * BLOCK;
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

  @Test
  void aJoiningNodeTakesItsSplitsFromTheirPreviousOwners() throws Exception {
    CacheStats stats = joinAndRead("s3a://bucket/handoff.bin", null);

    assertThat(s3.store().gets()).as("GETs after the join, counters %s", stats.snapshot()).isZero();
    assertThat(stats.get(CacheCounter.HANDOFF_BYTES)).as("counters %s", stats.snapshot()).isEqualTo((long) ownedBy3 * BLOCK);
    for (int b = 0; b < OBJECT / BLOCK; b++) {
      if (owners[b] == 3) {
        cluster.awaitCached(3, version, b);
      }
    }
  }

  /** Without the hand-off (window 0) the joining node fetches its splits from S3: one GET per run of its blocks at least. */
  @Test
  void withoutTheHandOffTheJoiningNodeFetchesItsSplitsAgain() throws Exception {
    CacheStats stats = joinAndRead("s3a://bucket/again.bin", "0s");

    assertThat(s3.store().gets()).as("counters %s", stats.snapshot()).isPositive();
    assertThat(stats.get(CacheCounter.HANDOFF_BYTES)).isZero();
  }

  /** A footer's read starts inside a block: the blocks holding it are handed off all the same. */
  @Test
  void aReadInsideABlockIsHandedOffToo() throws Exception {
    byte[] data = warmTwoNodes("s3a://bucket/footer.bin");
    int block = 0;
    while (owners[block] != 3) {
      block++;
    }
    long at = (long) block * BLOCK + 1000;
    byte[] read = new byte[100];
    s3.store().reset();
    CacheStats stats;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), cluster.clientConf(3, s3.s3aConfiguration()));
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://bucket/footer.bin"))) {
      in.readFully(at, read);
      stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
    }
    assertThat(read).isEqualTo(Arrays.copyOfRange(data, (int) at, (int) at + 100));
    assertThat(s3.store().gets()).as("counters %s", stats.snapshot()).isZero();
    assertThat(stats.get(CacheCounter.HANDOFF_BYTES)).as("counters %s", stats.snapshot()).isPositive();
  }

  /**
   * The new owner's daemon fills for its peers the same way: node 1 reads the whole object in the ring of
   * three and asks node 3 for node 3's blocks, which node 3's daemon (its configuration names the cluster)
   * takes from their previous owners, not from S3.
   */
  @Test
  void aJoiningNodesDaemonFillsItsPeersFromThePreviousOwners() throws Exception {
    String ring = String.join(",", TestCluster.nodeId(1) + "=127.0.0.1:1", TestCluster.nodeId(2) + "=127.0.0.2:1",
        TestCluster.nodeId(3) + "=127.0.0.3:1");
    byte[] data = warmTwoNodes("s3a://bucket/fill.bin", TestCluster.builder(tmp, 3).blockSize(BLOCK)
        .sourceCredentials(s3.s3aConfiguration())
        .daemon(PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name(), "bucket")
        .daemon(ClusterKeys.MANAGER.name(), "static")
        // the daemons split files as the readers do (the cluster's readers: one block per split)
        .daemon(ClusterKeys.FILESPLIT_SIZE.name(), Integer.toString(BLOCK))
        .daemon(ClusterKeys.NODES.name(), ring));

    s3.store().reset();
    CacheStats stats = read(cluster.clientConf(1, s3.s3aConfiguration()), "s3a://bucket/fill.bin", data);

    assertThat(s3.store().gets()).as("GETs, node 1's counters %s, node 3's daemon %s", stats.snapshot(), cluster.bookKeeper(3).stats()).isZero();
    for (int b = 0; b < OBJECT / BLOCK; b++) {
      if (owners[b] == 3) {
        cluster.awaitCached(3, version, b);
      }
    }
  }

  private int[] owners;
  private int ownedBy3;
  private ObjectVersion version;

  /** Nodes 1 and 2 (a ring of two) cache {@code path}; node 3 joins (a ring of three) and reads it all. */
  private CacheStats joinAndRead(String path, String window) throws Exception {
    byte[] data = warmTwoNodes(path);
    s3.store().reset();
    Configuration joined = cluster.clientConf(3, s3.s3aConfiguration());
    if (window != null) {
      joined.set(PeerFetchKeys.HANDOFF_WINDOW.name(), window);
    }
    return read(joined, path, data);
  }

  /** Starts three nodes; nodes 1 and 2, as a ring of two, read and cache {@code path}; returns its bytes. */
  private byte[] warmTwoNodes(String path) throws Exception {
    return warmTwoNodes(path, TestCluster.builder(tmp, 3).blockSize(BLOCK));
  }

  private byte[] warmTwoNodes(String path, TestCluster.Builder nodes) throws Exception {
    TestCluster.assumeBindable(3);
    cluster = nodes.startInProcess();
    byte[] data = new byte[OBJECT];
    new Random(29).nextBytes(data);
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration());
        FSDataOutputStream out = writer.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration())) {
      FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path(path));
      version = new ObjectVersion(path, status.getLen(), status.getModificationTime(), ((EtagSource) status).getEtag());
    }
    String all = cluster.clientConf(1, new Configuration(false)).get(ClusterKeys.NODES.name());
    String twoNodes = Arrays.stream(all.split(",")).filter(e -> !e.startsWith(TestCluster.nodeId(3) + "=")).collect(Collectors.joining(","));
    owners = owners(path, all);
    ownedBy3 = (int) Arrays.stream(owners).filter(o -> o == 3).count();
    assertThat(ownedBy3).as("blocks node 3 owns in the ring of three").isPositive();
    int[] before = owners(path, twoNodes);
    for (int node = 1; node <= 2; node++) {
      Configuration conf = cluster.clientConf(node, s3.s3aConfiguration());
      conf.set(ClusterKeys.NODES.name(), twoNodes);
      read(conf, path, data);
    }
    for (int b = 0; b < OBJECT / BLOCK; b++) {
      cluster.awaitCached(before[b], version, b);
    }
    return data;
  }

  private static CacheStats read(Configuration conf, String path, byte[] expected) throws Exception {
    byte[] read = new byte[expected.length];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, read);
      assertThat(Arrays.equals(read, expected)).as("bytes equal the object's").isTrue();
      return ((CachingS3AFileSystem) fs).cacheEngine().stats();
    }
  }

  /** The owner node (1-based) of each block of {@code path} in the ring {@code nodes}. */
  private int[] owners(String path, String nodes) {
    Configuration conf = cluster.clientConf(1, s3.s3aConfiguration());
    conf.set(ClusterKeys.NODES.name(), nodes);
    ClusterLocality locality = ClusterSetup.locality(conf);
    try {
      int[] owners = new int[OBJECT / BLOCK];
      List<String> ids = List.of(TestCluster.nodeId(1), TestCluster.nodeId(2), TestCluster.nodeId(3));
      for (int b = 0; b < owners.length; b++) {
        owners[b] = ids.indexOf(locality.ownerOf(path, (long) b * BLOCK).orElseThrow().id()) + 1;
      }
      return owners;
    } finally {
      locality.close();
    }
  }
}
