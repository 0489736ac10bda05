package io.rubix.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.CacheEngine;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.RuleUsage;
import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Path rules in embedded mode, through the caching S3A file system and a real S3 server: an excluded
 * path is read from the source on every read and nothing of it is cached; the bytes charged to a rule
 * with a quota stay within it, sampled after every grant, while another rule's objects stay cached.
 */
class PathRulesTest {
  private static final int BLOCK = 64 * 1024;
  /** Four two-block objects of the dims rule, with their overheads. */
  private static final long QUOTA = 4 * (2 * BLOCK + 4096);
  private static S3Server server;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("lake");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private Configuration conf() {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cache.block.size", "64k");
    conf.set("rubix.cache.max.size", "64m");
    // one grant per block-sized read: no read-ahead, no whole-object or tail fetches
    conf.set("rubix.cache.readahead.max", "0");
    conf.set("rubix.cache.fetch.whole.max", "0");
    conf.set("rubix.cache.fetch.tail.size", "0");
    conf.set("rubix.cache.rules", "tmp,dims");
    conf.set("rubix.cache.rule.tmp.paths", "s3a://lake/tmp/**");
    conf.set("rubix.cache.rule.tmp.action", "exclude");
    conf.set("rubix.cache.rule.dims.paths", "s3a://lake/warehouse/dim_*/**");
    conf.set("rubix.cache.rule.dims.quota", Long.toString(QUOTA));
    return conf;
  }

  @Test
  void anExcludedPathIsReadFromTheSourceEveryTimeAndNothingIsCached() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf())) {
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://lake/tmp/spill/part-0");
      byte[] data = data(3 * BLOCK + 17);
      CacheTestSupport.write(fs, path, data);
      CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();

      for (int read = 0; read < 3; read++) {
        server.store().reset();
        assertThat(CacheTestSupport.readAll(fs, path)).isEqualTo(data);
        assertThat(server.store().gets()).as("GETs of read %s", read).isPositive();
      }

      assertThat(engine.stats().get(CacheCounter.RULE_EXCLUDED_OPENS)).isEqualTo(3);
      assertThat(engine.stats().get(CacheCounter.MISS_BYTES)).as("no read went through the cache").isZero();
      assertThat(engine.service().usage().usedBytes()).isZero();
      assertThat(CacheTestSupport.dataFiles(cacheDir)).isEmpty();
    }
  }

  @Test
  void readingMoreThanARulesQuotaKeepsItWithinTheQuotaAndOtherObjectsCached() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf())) {
      CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();
      InProcessMetadataService service = (InProcessMetadataService) engine.service();
      org.apache.hadoop.fs.Path fact = new org.apache.hadoop.fs.Path("s3a://lake/warehouse/fact_sales/part-0");
      byte[] factData = data(3 * BLOCK);
      CacheTestSupport.write(fs, fact, factData);
      readBlockByBlock(fs, engine, service, fact, factData);

      for (int i = 0; i < 10; i++) {
        org.apache.hadoop.fs.Path dim = new org.apache.hadoop.fs.Path("s3a://lake/warehouse/dim_" + i + "/part-0");
        byte[] dimData = data(2 * BLOCK + i);
        CacheTestSupport.write(fs, dim, dimData);
        readBlockByBlock(fs, engine, service, dim, dimData);
      }

      RuleUsage dims = service.counters().ruleUsage().get(0);
      assertThat(dims.quotaBytes()).isEqualTo(QUOTA);
      assertThat(dims.evictions()).as("dims objects evicted to stay within the quota").isPositive();
      assertThat(dims.usedBytes()).isPositive().isLessThanOrEqualTo(QUOTA);
      server.store().reset();
      assertThat(CacheTestSupport.readAll(fs, fact)).isEqualTo(factData);
      assertThat(server.store().gets()).as("GETs to read the fact file again").isZero();
    }
  }

  /** Reads {@code path} one block at a time, waiting for each block's write, and checks the quotas after each (one grant per read). */
  private static void readBlockByBlock(FileSystem fs, CacheEngine engine, InProcessMetadataService service, org.apache.hadoop.fs.Path path,
      byte[] expected) throws Exception {
    try (FSDataInputStream in = fs.open(path)) {
      for (int at = 0; at < expected.length; at += BLOCK) {
        byte[] piece = new byte[Math.min(BLOCK, expected.length - at)];
        in.readFully(at, piece);
        for (int i = 0; i < piece.length; i++) {
          assertThat(piece[i]).isEqualTo(expected[at + i]);
        }
        for (RuleUsage rule : service.counters().ruleUsage()) {
          assertThat(rule.usedBytes()).as("rule %s after reading %s at %s", rule.rule(), path, at).isLessThanOrEqualTo(rule.quotaBytes());
        }
        CacheTestSupport.awaitWrites(engine, CacheTestSupport.version(in));
      }
    }
  }

  private static byte[] data(int size) {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    return data;
  }
}
