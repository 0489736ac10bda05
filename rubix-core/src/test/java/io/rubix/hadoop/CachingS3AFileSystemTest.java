package io.rubix.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachingS3AFileSystemTest {
  private static S3Server server;
  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("bucket");
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private Configuration conf() {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    return conf;
  }

  @Test
  void secondReadIsServedFromCacheWithoutGets() throws Exception {
    byte[] data = new byte[5 * 1024 * 1024 + 123];
    new Random(42).nextBytes(data);
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://bucket/data/first.bin");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf())) {
      assertThat(fs).isInstanceOf(S3AFileSystem.class).isInstanceOf(CachingS3AFileSystem.class);
      try (FSDataOutputStream out = fs.create(path)) {
        out.write(data);
      }
      server.store().reset();
      byte[] first = new byte[data.length];
      try (FSDataInputStream in = fs.open(path)) {
        in.readFully(0, first);
        // the blocks are written after the reader has its bytes: wait until they are published
        CacheTestSupport.awaitWrites(((HasCacheEngine) fs).cacheEngine(), CacheTestSupport.version(in));
      }
      assertThat(first).isEqualTo(data);
      long getsAfterFirst = server.store().gets();
      assertThat(getsAfterFirst).isPositive();
      assertThat(server.store().bytesServed()).isGreaterThanOrEqualTo(data.length);

      server.store().reset();
      byte[] second = new byte[data.length];
      try (FSDataInputStream in = fs.open(path)) {
        in.readFully(0, second);
        assertThat(IOStatisticsSupport.retrieveIOStatistics(in.getWrappedStream()).counters())
            .containsEntry("rubix_cache_hit_bytes", (long) data.length);
      }
      assertThat(second).isEqualTo(data);
      assertThat(server.store().gets()).isZero();
      assertThat(server.store().bytesServed()).isZero();
    }
  }

  @Test
  void embeddedCacheSurvivesReopeningTheFileSystem() throws Exception {
    byte[] data = new byte[2 * 1024 * 1024 + 99];
    new Random(7).nextBytes(data);
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://bucket/data/persistent.bin");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf())) {
      try (FSDataOutputStream out = fs.create(path)) {
        out.write(data);
      }
      try (FSDataInputStream in = fs.open(path)) {
        in.readFully(0, new byte[data.length]);
      }
    }
    server.store().reset();
    byte[] again = new byte[data.length];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf()); FSDataInputStream in = fs.open(path)) {
      in.readFully(0, again);
    }
    assertThat(again).isEqualTo(data);
    assertThat(server.store().gets()).as("GETs after the embedded cache was reopened").isZero();
  }
}
