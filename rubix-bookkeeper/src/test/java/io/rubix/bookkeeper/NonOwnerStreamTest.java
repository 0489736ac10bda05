package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.ClusterKeys;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A non-owner whose owner is down or does not serve reads like plain S3A: two BookKeepers in this JVM
 * (127.0.0.1 and 127.0.0.2) form a static cluster in which node 2 owns a 16 MiB object (one split), and a
 * reader on node 1 streams the object with 64 KiB reads. The object's bytes come from S3 in a handful of
 * GETs (plain S3A {@code classic}: one), not one per read.
 */
class NonOwnerStreamTest {
  private static final int OBJECT = 16 << 20;
  private static final int READ = 64 << 10;
  private static final int BLOCK = 1 << 20;
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

  /** The owner stops: the reader's first transfer fails, it takes the owner's place and caches the object. */
  @Test
  void aNonOwnerWhoseOwnerIsDown() throws Exception {
    streamOwnedByNode2(true);
  }

  /**
   * The owner is up but may not fetch from the store for its peers (no {@code
   * rubix.network.transfer.fetch.allowed.authorities}): it answers "not cached" to every request, the
   * reader keeps it in its ring, and reads the object from the store itself, uncached.
   */
  @Test
  void aNonOwnerWhoseOwnerDoesNotServe() throws Exception {
    streamOwnedByNode2(false);
  }

  /**
   * A reader whose node runs no BookKeeper (a Spark driver reading footers, a node whose daemon is down)
   * still reads the blocks other nodes own from their caches: node 2 caches the object, node 1's daemon
   * stops, and node 1's reader gets every byte from node 2 without a GET.
   */
  @Test
  void aReaderWithoutItsBookKeeperReadsWhatOwnersCached() throws Exception {
    TestCluster.assumeBindable(2);
    cluster = TestCluster.builder(tmp, 2)
        .blockSize(BLOCK)
        .client(ClusterKeys.FILESPLIT_SIZE.name(), "64m")
        .client(CacheKeys.READAHEAD_MAX.name(), CacheKeys.READAHEAD_MAX.defaultValue())
        .startInProcess();
    String path = ownedByNode2();
    byte[] data = write(path, 23);
    try (FileSystem owner = FileSystem.newInstance(URI.create("s3a://bucket/"), cluster.clientConf(2, s3.s3aConfiguration()));
        FSDataInputStream in = owner.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, new byte[OBJECT]);
    }
    FileStatus status;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration())) {
      status = fs.getFileStatus(new org.apache.hadoop.fs.Path(path));
    }
    ObjectVersion version = new ObjectVersion(path, status.getLen(), status.getModificationTime(), ((EtagSource) status).getEtag());
    for (int b = 0; b < OBJECT / BLOCK; b++) {
      cluster.awaitCached(2, version, b);
    }
    cluster.stop(1);

    s3.store().reset();
    byte[] read = new byte[OBJECT];
    CacheStats stats;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), cluster.clientConf(1, s3.s3aConfiguration()));
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      for (int at = 0; at < OBJECT; at += READ) {
        in.readFully(read, at, READ);
      }
      stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
    }
    assertThat(Arrays.equals(read, data)).as("bytes equal the object's").isTrue();
    assertThat(s3.store().gets()).as("GETs, counters " + stats.snapshot()).isZero();
    assertThat(stats.get(CacheCounter.PEER_BYTES)).as("counters " + stats.snapshot()).isEqualTo(OBJECT);
  }

  private void streamOwnedByNode2(boolean stopOwner) throws Exception {
    TestCluster.assumeBindable(2);
    cluster = TestCluster.builder(tmp, 2)
        .client(ClusterKeys.FILESPLIT_SIZE.name(), "64m")
        .client(CacheKeys.READAHEAD_MAX.name(), CacheKeys.READAHEAD_MAX.defaultValue())
        .client(BookKeeperKeys.TRANSFER_TIMEOUT.name(), "2s")
        .startInProcess();
    String path = ownedByNode2();
    byte[] data = write(path, 22);
    if (stopOwner) {
      cluster.stop(2);
    }

    Configuration conf = cluster.clientConf(1, s3.s3aConfiguration());
    conf.set("fs.s3a.input.stream.type", "classic");
    s3.store().reset();
    byte[] read = new byte[OBJECT];
    CacheStats stats;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      for (int at = 0; at < OBJECT; at += READ) {
        in.readFully(read, at, READ);
      }
      stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
    }
    assertThat(Arrays.equals(read, data)).as("bytes equal the object's").isTrue();
    if (stopOwner) {
      assertThat(stats.get(CacheCounter.FALLBACK_PEER)).as("the owner was asked and failed, counters " + stats.snapshot()).isPositive();
    } else {
      assertThat(stats.get(CacheCounter.NON_OWNER_SOURCE_BYTES)).as("read from the store, counters " + stats.snapshot()).isEqualTo(OBJECT);
    }
    assertThat(s3.store().gets()).as("GETs of 256 reads of 64 KiB (plain S3A classic: 1), counters " + stats.snapshot()).isLessThanOrEqualTo(8);
  }

  /** Writes {@link #OBJECT} random bytes (from {@code seed}) to {@code path}; returns them. */
  private static byte[] write(String path, long seed) throws Exception {
    byte[] data = new byte[OBJECT];
    new Random(seed).nextBytes(data);
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration());
        FSDataOutputStream out = writer.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  /** A path of an object whose one split node 2 owns. */
  private String ownedByNode2() {
    ClusterLocality locality = ClusterSetup.locality(cluster.clientConf(1, s3.s3aConfiguration()));
    try {
      for (int i = 0; ; i++) {
        String path = "s3a://bucket/owned-" + i + ".bin";
        if (locality.ownerOf(path, 0).orElseThrow().id().equals(TestCluster.nodeId(2))) {
          return path;
        }
      }
    } finally {
      locality.close();
    }
  }
}
