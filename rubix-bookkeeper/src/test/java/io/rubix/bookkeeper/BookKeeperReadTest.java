package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.bookkeeper.metrics.Exposition;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.testing.S3Server;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers in one JVM sharing a BookKeeper over Thrift: the second file system instance is served from the first one's cache. */
class BookKeeperReadTest {
  private static S3Server s3;
  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("bucket");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  private static byte[] write(Configuration conf, String path, int size) throws Exception {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf); FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  private static byte[] read(Configuration conf, String path, int size) throws Exception {
    byte[] bytes = new byte[size];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, bytes);
    }
    return bytes;
  }

  @Test
  void secondClientAndRestartedDaemonServeFromCache() throws Exception {
    String path = "s3a://bucket/shared.bin";
    int size = 3 * 1024 * 1024 + 17;
    byte[] data;
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(BookKeeperTestSupport.daemonConf(cacheDir)))) {
      Configuration conf = clientConf(bookKeeper.port());
      data = write(conf, path, size);
      s3.store().reset();
      assertThat(read(conf, path, size)).isEqualTo(data);
      assertThat(s3.store().bytesServed()).isGreaterThanOrEqualTo(size);

      s3.store().reset();
      assertThat(read(conf, path, size)).isEqualTo(data);
      assertThat(s3.store().gets()).isZero();

      Exposition metrics = Exposition.scrape(bookKeeper.metricsPort());
      // charged by 4 KiB allocation unit, plus one unit per object: 3 whole blocks, the 17-byte tail, the object
      assertThat(metrics.value("rubix_cache_used_bytes")).isEqualTo(3 * 1024 * 1024 + 4096 + 4096);
      assertThat(metrics.value("rubix_bookkeeper_commit_calls_total")).isPositive();
    }
    // a new daemon on the same directories is warm: recovered from its journal
    try (BookKeeper restarted = BookKeeper.start(BookKeeperConfig.from(BookKeeperTestSupport.daemonConf(cacheDir)))) {
      assertThat(restarted.service().counters().recoveredBlocks()).isEqualTo(4);
      s3.store().reset();
      assertThat(read(clientConf(restarted.port()), path, size)).isEqualTo(data);
      assertThat(s3.store().gets()).isZero();
    }
  }

  @Test
  void daemonDownMeansReadsFromTheSource() throws Exception {
    String path = "s3a://bucket/no-daemon.bin";
    int port;
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(BookKeeperTestSupport.daemonConf(cacheDir)))) {
      port = bookKeeper.port();
    }
    Configuration conf = clientConf(port);
    byte[] data = write(conf, path, 1024 * 1024 + 5);
    assertThat(read(conf, path, data.length)).isEqualTo(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf); InputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      assertThat(in.readAllBytes()).isEqualTo(data);
      assertThat(((CachingS3AFileSystem) fs).cacheEngine().stats().get(io.rubix.core.stats.CacheCounter.FALLBACK_METADATA)).isPositive();
    }
  }
}
