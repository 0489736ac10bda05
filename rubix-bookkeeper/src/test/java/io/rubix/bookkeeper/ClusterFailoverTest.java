package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.LivenessSnapshot;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.ClusterKeys;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three BookKeeper daemons, each in its own JVM, on 127.0.0.1, 127.0.0.2 and 127.0.0.3 (node ids
 * node1-3, a cache directory each, one shared data-transfer port) form a static cluster
 * ({@link TestCluster}); the S3 server (S3Proxy with request counters) and the readers run in this
 * JVM, the readers being caching file systems configured as node 1 and node 3 that talk to their
 * node's daemon. With 256 KiB blocks and
 * splits, every block is a split with its own owner.
 *
 * <ol>
 *   <li>A split node 2 owns and has cached reaches node 1's reader from node 2's cache: no S3 GET.
 *   <li>kill -9 of node 2 while both readers loop over verified reads: no read fails or returns wrong
 *       bytes; once the readers' liveness trackers took node 2 down, its splits are owned by nodes 1
 *       and 3 (block locations say so) and no other split moved.
 *   <li>Node 2 restarted on its cache directory recovers its blocks from its journal; once the
 *       trackers' probes reach it, its splits return to it and come from its cache: no S3 GET.
 *   <li>Throughout, random ranges read through the cluster equal direct S3A reads of the same ranges.
 * </ol>
 */
class ClusterFailoverTest {
  private static final int NODES = 3;
  private static final int BLOCK = 256 * 1024;
  private static final int SIZE = 3 * 1024 * 1024 + 17;
  private static final int SPLITS = (SIZE + BLOCK - 1) / BLOCK;
  private static final List<String> FILES = List.of("s3a://bucket/failover-0.bin", "s3a://bucket/failover-1.bin", "s3a://bucket/failover-2.bin");
  private static final Duration TIMEOUT = Duration.ofSeconds(45);

  @TempDir
  Path tmp;

  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final Map<String, byte[]> data = new LinkedHashMap<>();
  private S3Server s3;
  private FileSystem plain;
  private TestCluster cluster;
  private final Map<String, Long> phaseMillis = new LinkedHashMap<>();
  private long phaseStart = System.nanoTime();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  private <T extends AutoCloseable> T track(T resource) {
    cleanup.add(resource);
    return resource;
  }

  @Test
  void peerReadsThenKillMinusNineOfNode2ThenWarmRestart() throws Exception {
    TestCluster.assumeBindable(NODES);
    s3 = track(S3Server.inMemory());
    s3.createBucket("bucket");
    plain = track(FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration()));
    for (String file : FILES) {
      data.put(file, put(file));
    }
    cluster = track(TestCluster.builder(tmp, NODES).blockSize(BLOCK)
        // generous timeouts: on a loaded machine a slow answer must not pass for a dead node (a killed
        // daemon's ports refuse at once) nor send a warm read to S3
        .client(BookKeeperKeys.TRANSFER_TIMEOUT.name(), "10s")
        .client(BookKeeperKeys.READ_TIMEOUT.name(), "10s")
        .client(ClusterKeys.LIVENESS_DOWN_DURATION.name(), "200ms")
        .client(ClusterKeys.LIVENESS_PROBE_INTERVAL.name(), "50ms")
        .client(ClusterKeys.LIVENESS_PROBE_MAX_INTERVAL.name(), "200ms")
        .startChildJvms());
    lap("S3 server, files, start 3 daemons");

    // every node reads every file once and caches the splits it owns
    try (FileSystem fs2 = FileSystem.newInstance(URI.create("s3a://bucket/"), clientConf(2))) {
      for (String file : FILES) {
        readAll(fs2, file);
      }
    }
    CachingS3AFileSystem fs1 = track((CachingS3AFileSystem) FileSystem.newInstance(URI.create("s3a://bucket/"), clientConf(1)));
    CachingS3AFileSystem fs3 = track((CachingS3AFileSystem) FileSystem.newInstance(URI.create("s3a://bucket/"), clientConf(3)));
    for (String file : FILES) {
      readAll(fs1, file);
      readAll(fs3, file);
    }
    Map<String, List<Integer>> owners = owners(fs1);
    assertThat(owners(fs3)).as("both readers see the same owners").isEqualTo(owners);
    awaitCachedOnOwners(owners);
    long node2Bytes = ownedBytes(owners, 2);
    lap("warm the cluster");
    assertThat(node2Bytes).as("node 2 owns splits of these files").isPositive();

    assertThat(fs1.clusterLocality().liveness().snapshot().downTransitions()).as("no node went down while warming").isZero();
    assertThat(fs3.clusterLocality().liveness().snapshot().downTransitions()).as("no node went down while warming").isZero();

    // (a) node 2's splits reach node 1 from node 2's cache
    s3.store().reset();
    long peerBytes = stats(fs1).get(CacheCounter.PEER_BYTES);
    long servedBy2 = daemonStat(2, "rubix_transfer_bytes_served");
    for (String file : FILES) {
      readAll(fs1, file);
    }
    assertThat(s3.store().gets()).as("S3 GETs for a warm cluster").isZero();
    assertThat(stats(fs1).get(CacheCounter.PEER_BYTES) - peerBytes).isEqualTo(SIZE * (long) FILES.size() - ownedBytes(owners, 1));
    assertThat(daemonStat(2, "rubix_transfer_bytes_served") - servedBy2).as("bytes node 2 served from its cache").isEqualTo(node2Bytes);

    // (d) random ranges through peers equal direct reads
    differential(fs1, 7);
    differential(fs3, 8);

    lap("(a) peer reads, (d) differential");

    // (b) kill -9 of node 2 while nodes 1 and 3 loop over verified reads
    ReadLoop loop1 = track(new ReadLoop(fs1, 1));
    ReadLoop loop3 = track(new ReadLoop(fs3, 3));
    await("10 reads on each reader with node 2 up", () -> loop1.reads.get() >= 10 && loop3.reads.get() >= 10);
    lap("loops: 10 reads each");
    cluster.kill(2);
    await("both readers' trackers take node 2 down", () -> isDown(fs1, "node2") && isDown(fs3, "node2"));
    lap("(b) kill -9 until both trackers have node 2 down");
    long reads1 = loop1.reads.get();
    long reads3 = loop3.reads.get();
    await("10 more reads on each reader with node 2 down", () -> loop1.reads.get() >= reads1 + 10 && loop3.reads.get() >= reads3 + 10);
    assertThat(loop1.problems()).as("failed or wrong reads on node 1").isEmpty();
    assertThat(loop3.problems()).as("failed or wrong reads on node 3").isEmpty();
    for (CachingS3AFileSystem fs : List.of(fs1, fs3)) {
      Map<String, List<Integer>> during = owners(fs);
      for (String file : FILES) {
        for (int split = 0; split < SPLITS; split++) {
          int before = owners.get(file).get(split);
          int now = during.get(file).get(split);
          if (before == 2) {
            assertThat(now).as("owner of split %s of %s, node 2's before", split, file).isIn(1, 3);
          } else {
            assertThat(now).as("owner of split %s of %s: it did not move", split, file).isEqualTo(before);
          }
          assertThat(fs.clusterLocality().ownerOf(file, (long) split * BLOCK).map(ClusterNode::host)).contains(TestCluster.host(now));
        }
      }
      LivenessSnapshot snapshot = fs.clusterLocality().liveness().snapshot();
      assertThat(snapshot.down()).extracting(ClusterNode::id).containsExactly("node2");
      assertThat(snapshot.downTransitions()).isEqualTo(1);
    }

    // (c) node 2 restarts on its cache directory, warm; once the trackers reach it, its splits return
    lap("(b) 10 reads each with node 2 down, checks");
    cluster.restart(2);
    lap("(c) restart node 2 until its STARTED line");
    await("both readers' trackers bring node 2 back", () -> !isDown(fs1, "node2") && !isDown(fs3, "node2"));
    lap("(c) until both trackers have node 2 up");
    loop1.close();
    loop3.close();
    assertThat(loop1.problems()).as("failed or wrong reads on node 1").isEmpty();
    assertThat(loop3.problems()).as("failed or wrong reads on node 3").isEmpty();
    assertThat(owners(fs1)).as("every split back with its owner").isEqualTo(owners);
    assertThat(owners(fs3)).isEqualTo(owners);
    assertThat(daemonStat(2, "rubix_cache_recovered_blocks")).as("blocks node 2 recovered from its journal").isGreaterThanOrEqualTo(node2Bytes / BLOCK);
    s3.store().reset();
    servedBy2 = daemonStat(2, "rubix_transfer_bytes_served");
    for (String file : FILES) {
      readAll(fs1, file);
      readAll(fs3, file);
    }
    assertThat(s3.store().gets()).as("S3 GETs after node 2 came back warm").isZero();
    // each of node 2's splits has one runner-up, which may have cached it while node 2 was down and
    // then reads it locally; the other reader gets it from node 2
    assertThat(daemonStat(2, "rubix_transfer_bytes_served") - servedBy2).as("bytes node 2 served to the two readers")
        .isBetween(node2Bytes, 2 * node2Bytes);
    for (CachingS3AFileSystem fs : List.of(fs1, fs3)) {
      LivenessSnapshot snapshot = fs.clusterLocality().liveness().snapshot();
      assertThat(snapshot.down()).isEmpty();
      assertThat(snapshot.upTransitions()).isEqualTo(1);
    }
    differential(fs1, 9);
    differential(fs3, 10);
    lap("(c) warm reads, (d) differential");
    System.out.printf("ClusterFailoverTest: %d looped reads on node 1, %d on node 3; phases (ms): %s%n", loop1.reads.get(), loop3.reads.get(), phaseMillis);
  }

  private void lap(String phase) {
    long now = System.nanoTime();
    phaseMillis.put(phase, TimeUnit.NANOSECONDS.toMillis(now - phaseStart));
    phaseStart = now;
  }

  // ---------------------------------------------------------------------------------------------

  private Configuration clientConf(int node) {
    return cluster.clientConf(node, s3.s3aConfiguration());
  }

  private byte[] put(String path) throws IOException {
    byte[] bytes = new byte[SIZE];
    new Random(path.hashCode()).nextBytes(bytes);
    try (FSDataOutputStream out = plain.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(bytes);
    }
    return bytes;
  }

  private void readAll(FileSystem fs, String path) throws IOException {
    byte[] bytes = new byte[SIZE];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, bytes);
    }
    assertThat(bytes).as("bytes of %s", path).isEqualTo(data.get(path));
  }

  /** Random ranges read through {@code fs} equal the same ranges read directly from S3. */
  private void differential(FileSystem fs, long seed) throws IOException {
    Random random = new Random(seed);
    for (int i = 0; i < 40; i++) {
      String path = FILES.get(random.nextInt(FILES.size()));
      int offset = random.nextInt(SIZE);
      int length = 1 + random.nextInt(Math.min(SIZE - offset, 3 * BLOCK));
      byte[] cached = new byte[length];
      byte[] direct = new byte[length];
      try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
        in.readFully(offset, cached);
      }
      try (FSDataInputStream in = plain.open(new org.apache.hadoop.fs.Path(path))) {
        in.readFully(offset, direct);
      }
      assertThat(cached).as("%s bytes at %s of %s", length, offset, path).isEqualTo(direct);
    }
  }

  /** The owner node (1-3) of each split of each file, from the reader's block locations. */
  private static Map<String, List<Integer>> owners(FileSystem fs) throws IOException {
    Map<String, List<Integer>> owners = new LinkedHashMap<>();
    for (String file : FILES) {
      FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path(file));
      BlockLocation[] locations = fs.getFileBlockLocations(status, 0, SIZE);
      assertThat(locations).hasSize(SPLITS);
      List<Integer> nodes = new ArrayList<>();
      for (int split = 0; split < SPLITS; split++) {
        assertThat(locations[split].getOffset()).isEqualTo((long) split * BLOCK);
        String host = locations[split].getHosts()[0];
        assertThat(host).startsWith("127.0.0.");
        nodes.add(Integer.parseInt(host.substring("127.0.0.".length())));
      }
      owners.put(file, nodes);
    }
    return owners;
  }

  private static long ownedBytes(Map<String, List<Integer>> owners, int node) {
    long bytes = 0;
    for (List<Integer> nodes : owners.values()) {
      for (int split = 0; split < nodes.size(); split++) {
        if (nodes.get(split) == node) {
          bytes += Math.min(BLOCK, SIZE - (long) split * BLOCK);
        }
      }
    }
    return bytes;
  }

  private void awaitCachedOnOwners(Map<String, List<Integer>> owners) throws Exception {
    for (String file : FILES) {
      ObjectVersion version = versionOf(file);
      List<Integer> nodes = owners.get(file);
      for (int block = 0; block < SPLITS; block++) {
        cluster.awaitCached(nodes.get(block), version, block);
      }
    }
  }

  private ObjectVersion versionOf(String path) throws IOException {
    FileStatus status = plain.getFileStatus(new org.apache.hadoop.fs.Path(path));
    String etag = status instanceof EtagSource source && source.getEtag() != null ? source.getEtag() : "";
    return new ObjectVersion(path, status.getLen(), status.getModificationTime(), etag);
  }

  private long daemonStat(int node, String name) throws IOException {
    try (BookKeeperClient client = cluster.client(node)) {
      Long value = client.daemonStats().get(name);
      assertThat(value).as("%s of node %s", name, node).isNotNull();
      return value;
    }
  }

  private static CacheStats stats(CachingS3AFileSystem fs) {
    return fs.cacheEngine().stats();
  }

  private static boolean isDown(CachingS3AFileSystem fs, String id) {
    ClusterLocality locality = fs.clusterLocality();
    return locality.liveness().isDown(id);
  }

  /** Polls {@code condition} until it holds; fails after {@link #TIMEOUT}. */
  private static void await(String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + TIMEOUT + " waiting for: " + what);
      }
      // polling interval, not synchronization: the condition decides
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  @FunctionalInterface
  private interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * A thread that reads through one file system until closed: random ranges of one to three blocks
   * and, every fifth read, a whole file, each checked against the bytes written. Failures and wrong
   * bytes are recorded, never thrown.
   */
  private final class ReadLoop implements AutoCloseable {
    final AtomicLong reads = new AtomicLong();
    final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    ReadLoop(FileSystem fs, long seed) {
      Random random = new Random(seed);
      this.thread = new Thread(() -> {
        while (!stop.get()) {
          String path = FILES.get(random.nextInt(FILES.size()));
          byte[] expected = data.get(path);
          boolean whole = random.nextInt(5) == 0;
          int offset = whole ? 0 : random.nextInt(SIZE);
          int length = whole ? SIZE : 1 + random.nextInt(Math.min(SIZE - offset, 3 * BLOCK));
          byte[] bytes = new byte[length];
          try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
            in.readFully(offset, bytes);
            if (!Arrays.equals(bytes, 0, length, expected, offset, offset + length)) {
              problems.add("wrong bytes: " + length + " at " + offset + " of " + path);
            }
          } catch (IOException | RuntimeException e) {
            problems.add("failed read of " + length + " at " + offset + " of " + path + ": " + e);
          }
          reads.incrementAndGet();
        }
      }, "read-loop-node-" + seed);
      thread.setDaemon(true);
      thread.start();
    }

    List<String> problems() {
      return List.copyOf(problems);
    }

    @Override
    public void close() {
      stop.set(true);
      try {
        thread.join(TIMEOUT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        throw new AssertionError("Read loop did not stop within " + TIMEOUT);
      }
    }
  }
}
