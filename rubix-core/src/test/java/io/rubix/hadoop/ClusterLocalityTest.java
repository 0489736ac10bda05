package io.rubix.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.CacheEngine;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locality and admission with a static cluster of three nodes (a, b, c on hosts host-a, host-b,
 * host-c), all played by file systems in this JVM that differ only in {@code rubix.cluster.node.id}
 * and cache directory: 64 KiB blocks, 256 KiB splits.
 */
class ClusterLocalityTest {
  private static final int BLOCK = 64 << 10;
  private static final int SPLIT = 256 << 10;
  private static final int LENGTH = 10 * SPLIT + 3 * BLOCK + 17;
  private static final List<String> IDS = List.of("a", "b", "c");
  private static S3Server server;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("bucket");
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private static void cluster(Configuration conf, String nodeId) {
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.filesplit.size", "256k");
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", "a=host-a,b=host-b:9100,c=host-c");
    conf.set("rubix.cluster.node.id", nodeId);
    conf.set("rubix.cache.readahead.max", "0");
    // host-a/b/c do not exist: a peer read would fail and take that node out of the reader's ring
    // (see LiveOwnershipTest); these tests are about ownership over a fixed node list
    conf.set("rubix.network.transfer.enabled", "false");
  }

  private Configuration localConf(String nodeId) throws Exception {
    Configuration conf = CacheTestSupport.localConf(Files.createDirectories(tmp.resolve("cache-" + nodeId)));
    cluster(conf, nodeId);
    return conf;
  }

  private Configuration s3Conf(String nodeId) throws Exception {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", Files.createDirectories(tmp.resolve("s3-cache-" + nodeId)).toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    cluster(conf, nodeId);
    return conf;
  }

  private static byte[] data() {
    byte[] data = new byte[LENGTH];
    new Random(11).nextBytes(data);
    return data;
  }

  /** The expected owner of each split: from a locality built apart from {@code fs}, with its configuration. */
  private static List<ClusterNode> owners(FileSystem fs, org.apache.hadoop.fs.Path path) {
    try (ClusterLocality locality = ClusterSetup.locality(fs.getConf())) {
      List<ClusterNode> owners = new ArrayList<>();
      for (long split = 0; split * SPLIT < LENGTH; split++) {
        owners.add(locality.owners(fs.makeQualified(path).toString(), split).get(0));
      }
      return owners;
    }
  }

  private static void assertSplitLocations(BlockLocation[] locations, List<ClusterNode> owners) throws Exception {
    assertThat(locations).hasSize(owners.size());
    for (int i = 0; i < locations.length; i++) {
      assertThat(locations[i].getOffset()).isEqualTo((long) i * SPLIT);
      assertThat(locations[i].getLength()).isEqualTo(Math.min(SPLIT, LENGTH - (long) i * SPLIT));
      assertThat(locations[i].getHosts()).containsExactly(owners.get(i).host());
      assertThat(locations[i].getNames()).containsExactly(owners.get(i).name());
    }
  }

  @Test
  void localFileSystemReportsOneLocationPerSplitOnItsOwner() throws Exception {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(tmp.resolve("data").toUri());
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(dir, "part-0.bin");
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), localConf("a"))) {
      CacheTestSupport.write(fs, path, data());
      List<ClusterNode> owners = owners(fs, path);
      assertThat(owners).extracting(ClusterNode::id).as("3 nodes share 11 splits").containsAnyElementsOf(IDS);
      // each owner is named by its configured host and port (b's own port, the default for the others);
      // which nodes own splits depends on the temporary path, so no particular node is required
      assertThat(owners).allSatisfy(owner -> assertThat(owner.name()).isEqualTo("host-" + owner.id() + (owner.id().equals("b") ? ":9100" : ":8899")));
      FileStatus status = fs.getFileStatus(path);
      assertSplitLocations(fs.getFileBlockLocations(status, 0, LENGTH), owners);
      assertSplitLocations(fs.getFileBlockLocations(path, 0, Long.MAX_VALUE), owners);
      assertSplitLocations(locatedStatus(fs.listLocatedStatus(dir)).getBlockLocations(), owners);
      assertSplitLocations(locatedStatus(fs.listFiles(dir, true)).getBlockLocations(), owners);

      BlockLocation[] middle = fs.getFileBlockLocations(status, SPLIT + 5, SPLIT);
      assertThat(middle).extracting(BlockLocation::getOffset).containsExactly((long) SPLIT, 2L * SPLIT);
      assertThat(fs.getFileBlockLocations(status, SPLIT + 5, 0)).extracting(BlockLocation::getOffset).containsExactly((long) SPLIT);
      assertThat(fs.getFileBlockLocations(status, LENGTH, 10)).isEmpty();
      assertThat(fs.getFileBlockLocations(status, 3L * SPLIT, Long.MAX_VALUE)).hasSize(owners.size() - 3);
    }
  }

  @Test
  void secondPreferredHostIsTheRunnerUp() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("two.bin").toUri());
    Configuration conf = localConf("a");
    conf.set("rubix.cluster.preferred.hosts", "2");
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      CacheTestSupport.write(fs, path, data());
      List<ClusterNode> owners = owners(fs, path);
      BlockLocation[] locations = fs.getFileBlockLocations(fs.getFileStatus(path), 0, LENGTH);
      for (int i = 0; i < locations.length; i++) {
        assertThat(locations[i].getHosts()).hasSize(2).doesNotHaveDuplicates();
        assertThat(locations[i].getHosts()[0]).isEqualTo(owners.get(i).host());
      }
    }
  }

  @Test
  void withoutAClusterManagerTheWrappedLocationsAreReported() throws Exception {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(tmp.resolve("plain").toUri());
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(dir, "part-0.bin");
    Configuration conf = CacheTestSupport.localConf(Files.createDirectories(tmp.resolve("cache-none")));
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.filesplit.size", "256k");
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf); LocalFileSystem plain = new LocalFileSystem()) {
      plain.initialize(URI.create("file:///"), new Configuration());
      CacheTestSupport.write(fs, path, data());
      BlockLocation[] expected = plain.getFileBlockLocations(plain.getFileStatus(path), 0, LENGTH);
      assertThat(describe(fs.getFileBlockLocations(fs.getFileStatus(path), 0, LENGTH))).isEqualTo(describe(expected));
      assertThat(describe(fs.getFileBlockLocations(path, 0, LENGTH))).isEqualTo(describe(expected));
      assertThat(describe(locatedStatus(fs.listLocatedStatus(dir)).getBlockLocations())).isEqualTo(describe(expected));
      // everything is admitted: a read caches every block
      byte[] read = CacheTestSupport.readAll(fs, path);
      assertThat(read).isEqualTo(data());
      assertThat(((HasCacheEngine) fs).cacheEngine().stats().get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isZero();
    }
  }

  @Test
  void eachNodeCachesOnlyTheSplitsItOwns() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("shared.bin").toUri());
    byte[] data = data();
    long cachedTotal = 0;
    long nonOwnerTotal = 0;
    for (String id : IDS) {
      try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), localConf(id))) {
        if (id.equals("a")) {
          CacheTestSupport.write(fs, path, data);
        }
        long owned = ownedBytes(owners(fs, path), id);
        CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();
        readTwiceAndCheck(fs, path, data, engine, owned);
        cachedTotal += engine.stats().get(CacheCounter.CACHE_WRITE_BYTES);
        nonOwnerTotal += engine.stats().get(CacheCounter.NON_OWNER_SOURCE_BYTES);
      }
    }
    assertThat(cachedTotal).as("every byte is cached on exactly one node").isEqualTo(LENGTH);
    assertThat(nonOwnerTotal).as("each node read the others' splits from the source, twice").isEqualTo(2L * 2 * LENGTH);
  }

  @Test
  void aNodeThatIsNotListedCachesNothing() throws Exception {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("coordinator.bin").toUri());
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), localConf("z"))) {
      CacheTestSupport.write(fs, path, data());
      assertThat(CacheTestSupport.readAll(fs, path)).isEqualTo(data());
      CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();
      assertThat(engine.stats().get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isEqualTo(LENGTH);
      assertThat(engine.stats().get(CacheCounter.CACHE_WRITE_BYTES)).isZero();
      assertThat(fs.getFileBlockLocations(fs.getFileStatus(path), 0, LENGTH)).hasSize(owners(fs, path).size());
    }
  }

  @Test
  void s3aReportsSplitLocationsInLocationsAndListingsAndAdmitsOnlyOwnedSplits() throws Exception {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("s3a://bucket/cluster/");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(dir, "part-0.bin");
    byte[] data = data();
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), s3Conf("b"))) {
      assertThat(fs).isInstanceOf(CachingS3AFileSystem.class);
      CacheTestSupport.write(fs, path, data);
      List<ClusterNode> owners = owners(fs, path);
      FileStatus status = fs.getFileStatus(path);
      assertSplitLocations(fs.getFileBlockLocations(status, 0, LENGTH), owners);
      assertSplitLocations(fs.getFileBlockLocations(path, 0, LENGTH), owners);
      assertSplitLocations(locatedStatus(fs.listLocatedStatus(dir)).getBlockLocations(), owners);
      assertSplitLocations(locatedStatus(fs.listFiles(dir, true)).getBlockLocations(), owners);

      CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();
      long owned = ownedBytes(owners, "b");
      server.store().reset();
      readTwiceAndCheck(fs, path, data, engine, owned);
      assertThat(server.store().bytesServed()).as("owned splits once, the others twice").isEqualTo(owned + 2 * (LENGTH - owned));
    }
    Configuration none = s3Conf("b");
    none.set("rubix.cluster.manager", "none");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), none)) {
      BlockLocation[] locations = fs.getFileBlockLocations(fs.getFileStatus(path), 0, LENGTH);
      assertThat(locations).allSatisfy(l -> assertThat(l.getHosts()).containsExactly("localhost"));
    }
  }

  private static void readTwiceAndCheck(FileSystem fs, org.apache.hadoop.fs.Path path, byte[] data, CacheEngine engine, long owned)
      throws Exception {
    byte[] first = new byte[LENGTH];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(0, first);
      CacheTestSupport.awaitWrites(engine, CacheTestSupport.version(in));
    }
    assertThat(first).isEqualTo(data);
    assertThat(engine.stats().get(CacheCounter.NON_OWNER_SOURCE_BYTES)).isEqualTo(LENGTH - owned);
    assertThat(engine.stats().get(CacheCounter.CACHE_WRITE_BYTES)).isEqualTo(owned);
    byte[] second = new byte[LENGTH];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(0, second);
    }
    assertThat(second).isEqualTo(data);
    assertThat(engine.stats().get(CacheCounter.HIT_BYTES)).as("owned splits come from the cache").isEqualTo(owned);
    assertThat(engine.stats().get(CacheCounter.NON_OWNER_SOURCE_BYTES)).as("the others from the source again").isEqualTo(2 * (LENGTH - owned));
  }

  private static long ownedBytes(List<ClusterNode> owners, String id) {
    long owned = 0;
    for (int i = 0; i < owners.size(); i++) {
      if (owners.get(i).id().equals(id)) {
        owned += Math.min(SPLIT, LENGTH - (long) i * SPLIT);
      }
    }
    return owned;
  }

  private static LocatedFileStatus locatedStatus(RemoteIterator<LocatedFileStatus> listing) throws Exception {
    List<LocatedFileStatus> files = new ArrayList<>();
    while (listing.hasNext()) {
      LocatedFileStatus status = listing.next();
      if (status.isFile()) {
        files.add(status);
      }
    }
    assertThat(files).hasSize(1);
    return files.get(0);
  }

  private static List<String> describe(BlockLocation[] locations) throws Exception {
    List<String> result = new ArrayList<>();
    for (BlockLocation location : locations) {
      result.add(location.getOffset() + "+" + location.getLength() + Arrays.toString(location.getHosts()) + Arrays.toString(location.getNames()));
    }
    return result;
  }
}
