package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.CacheEngine;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.metadata.RuleUsage;
import io.rubix.core.read.CachingInputStream;
import io.rubix.bookkeeper.metrics.Exposition;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.hadoop.HasCacheEngine;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Path rules through a real BookKeeper, which owns the grants: a client configured without the
 * daemon's exclude rule still gets no grant for an excluded path (nothing of it is cached, every read
 * is a GET); a rule's quota holds while clients read more than it, sampled after every grant, and
 * across a restart of the daemon, while another rule's object stays cached; the daemon's stats map
 * and Prometheus endpoint show each rule's use.
 */
class PathRulesDaemonTest {
  private static final int BLOCK = 64 * 1024;
  private static final long CAP = 8L * 1024 * 1024;
  /** Four two-block objects of the dims rule, with their overheads. */
  private static final long QUOTA = 4 * (2 * BLOCK + 4096);
  private static S3Server s3;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("lake");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  private BookKeeperConfig daemonConfig() {
    Configuration conf = BookKeeperTestSupport.daemonConf(cacheDir);
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    conf.set(CacheKeys.MAX_SIZE.name(), Long.toString(CAP));
    conf.set("rubix.cache.rules", "tmp,dims");
    conf.set("rubix.cache.rule.tmp.paths", "s3a://lake/tmp/**");
    conf.set("rubix.cache.rule.tmp.action", "exclude");
    conf.set("rubix.cache.rule.dims.paths", "s3a://lake/warehouse/dim_*/**");
    conf.set("rubix.cache.rule.dims.quota", Long.toString(QUOTA));
    return BookKeeperConfig.from(conf);
  }

  /** A client with no rules of its own: it asks the daemon for every path. */
  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    conf.set("rubix.cache.jmx.enabled", "false");
    // one grant per block-sized read
    conf.set("rubix.cache.readahead.max", "0");
    conf.set("rubix.cache.fetch.whole.max", "0");
    conf.set("rubix.cache.fetch.tail.size", "0");
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  @Test
  void aClientWithoutTheExcludeRuleGetsNoGrantForAnExcludedPath() throws Exception {
    try (BookKeeper bookKeeper = BookKeeper.start(daemonConfig())) {
      Configuration conf = clientConf(bookKeeper.port());
      byte[] data = write(conf, "s3a://lake/tmp/spill/part-0", 3 * BLOCK + 5);
      ObjectVersion excluded = new ObjectVersion("s3a://lake/tmp/spill/part-0", data.length, 1, "etag");
      try (BookKeeperClient client = BookKeeperTestSupport.client(conf, BLOCK)) {
        BlockRange range = client.acquire(excluded, 0, 4);
        for (int b = 0; b < 4; b++) {
          assertThat(range.state(b)).as("block %s", b).isEqualTo(BlockState.DENIED);
        }
      }

      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf)) {
        for (int read = 0; read < 2; read++) {
          s3.store().reset();
          byte[] bytes = new byte[data.length];
          try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://lake/tmp/spill/part-0"))) {
            in.readFully(0, bytes);
          }
          assertThat(bytes).isEqualTo(data);
          assertThat(s3.store().gets()).as("GETs of read %s", read).isPositive();
        }
      }
      assertThat(bookKeeper.service().usage().usedBytes()).isZero();
      assertThat(bookKeeper.service().usage().disks().get(0).objects()).isZero();
      assertThat(metric(bookKeeper, "rubix_rule_excluded_requests_total", "")).isGreaterThanOrEqualTo(3);
    }
  }

  @Test
  void aQuotaHoldsThroughTheDaemonAndAcrossARestart() throws Exception {
    DiskUsageSampler disk = new DiskUsageSampler(cacheDir);
    byte[] fact;
    long usedBeforeRestart;
    try (BookKeeper bookKeeper = BookKeeper.start(daemonConfig())) {
      Configuration conf = clientConf(bookKeeper.port());
      fact = write(conf, "s3a://lake/warehouse/fact_sales/part-0", 3 * BLOCK);
      readBlockByBlock(bookKeeper, conf, "s3a://lake/warehouse/fact_sales/part-0", fact, disk);
      for (int i = 0; i < 8; i++) {
        String path = "s3a://lake/warehouse/dim_" + i + "/part-0";
        readBlockByBlock(bookKeeper, conf, path, write(conf, path, 2 * BLOCK + i), disk);
      }
      RuleUsage dims = bookKeeper.service().counters().ruleUsage().get(0);
      assertThat(dims.evictions()).as("dims objects evicted to stay within the quota").isPositive();
      usedBeforeRestart = dims.usedBytes();
      assertThat(usedBeforeRestart).isPositive();
      assertThat(metric(bookKeeper, "rubix_rule_used_bytes", "{rule=\"dims\"}")).isEqualTo(usedBeforeRestart);
      assertThat(metric(bookKeeper, "rubix_rule_quota_bytes", "{rule=\"dims\"}")).isEqualTo(QUOTA);
      try (BookKeeperClient client = BookKeeperTestSupport.client(conf, BLOCK)) {
        assertThat(client.daemonStats()).containsEntry("rule.dims.used_bytes", usedBeforeRestart).containsEntry("rule.dims.quota_bytes", QUOTA);
      }
    }

    try (BookKeeper bookKeeper = BookKeeper.start(daemonConfig())) {
      assertThat(bookKeeper.service().counters().ruleUsage().get(0).usedBytes()).as("recovered objects charged to their rule again")
          .isEqualTo(usedBeforeRestart);
      Configuration conf = clientConf(bookKeeper.port());
      for (int i = 8; i < 14; i++) {
        String path = "s3a://lake/warehouse/dim_" + i + "/part-0";
        readBlockByBlock(bookKeeper, conf, path, write(conf, path, 2 * BLOCK + i), disk);
      }
      assertThat(bookKeeper.service().counters().ruleUsage().get(0).usedBytes()).isLessThanOrEqualTo(QUOTA);

      s3.store().reset();
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf);
          FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://lake/warehouse/fact_sales/part-0"))) {
        byte[] bytes = new byte[fact.length];
        in.readFully(0, bytes);
        assertThat(bytes).isEqualTo(fact);
      }
      assertThat(s3.store().gets()).as("GETs to read the fact file again after the restart").isZero();
    }
    assertThat(disk.maxData).as("data bytes on disk (dims within the quota, plus the fact file): %s", disk.worst)
        .isLessThanOrEqualTo(QUOTA + 3 * BLOCK);
  }

  /** Reads {@code path} one block at a time, each read's block committed before the next, checking the daemon's quotas after each grant. */
  private static void readBlockByBlock(BookKeeper bookKeeper, Configuration conf, String path, byte[] expected, DiskUsageSampler disk)
      throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();
      ObjectVersion version = ((CachingInputStream) in.getWrappedStream()).version();
      for (int at = 0; at < expected.length; at += BLOCK) {
        byte[] piece = new byte[Math.min(BLOCK, expected.length - at)];
        in.readFully(at, piece);
        for (int i = 0; i < piece.length; i++) {
          assertThat(piece[i]).isEqualTo(expected[at + i]);
        }
        for (RuleUsage rule : bookKeeper.service().counters().ruleUsage()) {
          assertThat(rule.usedBytes()).as("rule %s after reading %s at %s", rule.rule(), path, at).isLessThanOrEqualTo(rule.quotaBytes());
        }
        engine.service().awaitInFlight(version, 0, version.blockCount(BLOCK), TimeUnit.SECONDS.toMillis(30));
        disk.sample();
      }
    }
  }

  private static byte[] write(Configuration conf, String path, int size) throws Exception {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf); FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  private static long metric(BookKeeper bookKeeper, String name, String labels) throws Exception {
    return (long) Exposition.scrape(bookKeeper.metricsPort()).value(name + labels);
  }
}
