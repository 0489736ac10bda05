package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.bookkeeper.metrics.Exposition;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.config.CacheKeys;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The eviction policy through the daemon: readers of the caching S3A file system share a BookKeeper
 * configured with {@code rubix.cache.eviction.policy}; hot files are read again and again, then one
 * file four times the cache's cap is read once. Under tinylfu the hot files are still cached (0 GETs
 * to read them again) and the refusals are counted in /metrics and in the usage the CLI shows; under
 * lru the scan evicted them. Every read returns the stored bytes, and the cache directory never holds
 * more data than the cap.
 */
class ScanResistanceDaemonTest {
  private static final int BLOCK = 64 * 1024;
  private static final long CAP = 2L * 1024 * 1024;
  private static S3Server s3;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("scans");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @Test
  void underTinyLfuAScanThroughTheDaemonLeavesTheHotFilesCached() throws Exception {
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf("tinylfu")))) {
      readHotFilesThenScan(bookKeeper, "tinylfu");

      s3.store().reset();
      readHotFiles(bookKeeper);
      assertThat(s3.store().gets()).as("GETs to read the hot files again").isZero();
      assertThat(metric(bookKeeper, "rubix_cache_admission_rejections_total")).isPositive();
      try (BookKeeperClient client = BookKeeperTestSupport.client(clientConf(bookKeeper.port()), BLOCK)) {
        assertThat(client.usage().admissionRejections()).isEqualTo(bookKeeper.service().counters().admissionRejections()).isPositive();
      }
    }
  }

  @Test
  void underLruTheSameScanEvictsThem() throws Exception {
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf("lru")))) {
      readHotFilesThenScan(bookKeeper, "lru");

      s3.store().reset();
      readHotFiles(bookKeeper);
      assertThat(s3.store().gets()).as("GETs to read the hot files again").isPositive();
      assertThat(metric(bookKeeper, "rubix_cache_admission_rejections_total")).isZero();
    }
  }

  private Configuration daemonConf(String policy) {
    Configuration conf = BookKeeperTestSupport.daemonConf(cacheDir);
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    conf.set(CacheKeys.MAX_SIZE.name(), Long.toString(CAP));
    conf.set(CacheKeys.EVICTION_POLICY.name(), policy);
    return conf;
  }

  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  private void readHotFilesThenScan(BookKeeper bookKeeper, String prefix) throws Exception {
    Configuration conf = clientConf(bookKeeper.port());
    List<byte[]> hot = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      hot.add(write(conf, hotPath(i), 2 * BLOCK + 100 * i));
    }
    byte[] scan = write(conf, "s3a://scans/fact/" + prefix + "-backfill.orc", (int) (4 * CAP));
    for (int round = 0; round < 4; round++) {
      readHotFiles(bookKeeper);
    }
    DiskUsageSampler usage = new DiskUsageSampler(cacheDir);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://scans/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://scans/fact/" + prefix + "-backfill.orc"))) {
      byte[] piece = new byte[256 * 1024];
      for (int at = 0; at < scan.length; at += piece.length) {
        in.readFully(piece);
        for (int i = 0; i < piece.length; i++) {
          if (piece[i] != scan[at + i]) {
            throw new AssertionError("scan byte " + (at + i) + " differs");
          }
        }
        usage.sample();
      }
    }
    assertThat(usage.maxData).as("data bytes on disk during the scan: %s", usage.lastDetail).isLessThanOrEqualTo(CAP);
  }

  private void readHotFiles(BookKeeper bookKeeper) throws Exception {
    Configuration conf = clientConf(bookKeeper.port());
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://scans/"), conf)) {
      for (int i = 0; i < 4; i++) {
        byte[] expected = expected(2 * BLOCK + 100 * i);
        byte[] bytes = new byte[expected.length];
        try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(hotPath(i)))) {
          in.readFully(0, bytes);
        }
        assertThat(bytes).isEqualTo(expected);
      }
    }
  }

  private static String hotPath(int i) {
    return "s3a://scans/dim/part-" + i + ".orc";
  }

  private static byte[] expected(int size) {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    return data;
  }

  private static byte[] write(Configuration conf, String path, int size) throws Exception {
    byte[] data = expected(size);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://scans/"), conf); FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  private static long metric(BookKeeper bookKeeper, String name) throws Exception {
    return (long) Exposition.scrape(bookKeeper.metricsPort()).value(name);
  }
}
