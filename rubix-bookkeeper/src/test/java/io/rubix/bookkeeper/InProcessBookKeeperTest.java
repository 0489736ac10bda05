package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.client.InProcessBookKeepers;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConflictingCacheException;
import io.rubix.core.stats.CacheCounter;
import io.rubix.hadoop.CachingLocalFileSystem;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rubix.bookkeeper.embedded=true}: a BookKeeper started inside the JVM by its first caching file system. */
class InProcessBookKeeperTest {
  @TempDir
  Path dir;

  @Test
  void firstFileSystemStartsOneBookKeeperThatLaterOnesShare() throws Exception {
    Path cache = Files.createDirectories(dir.resolve("cache"));
    Configuration conf = BookKeeperTestSupport.daemonConf(cache);
    conf.setBoolean("rubix.bookkeeper.embedded", true);
    conf.set("rubix.cache.block.size", "64k");
    byte[] data = randomFile(dir.resolve("data.bin"), 500_000);

    ClientConfig first = InProcessBookKeepers.reach(conf, CacheConfig.from(conf), ClientConfig.from(conf));
    ClientConfig second = InProcessBookKeepers.reach(conf, CacheConfig.from(conf), ClientConfig.from(conf));
    assertThat(first.embedded()).isFalse();
    assertThat(first.port()).isPositive();
    assertThat(second).isEqualTo(first);

    long sourceBytes = 0;
    for (int round = 0; round < 2; round++) {
      try (CachingLocalFileSystem fs = new CachingLocalFileSystem()) {
        fs.initialize(URI.create("file:///"), conf);
        assertThat(fs.cacheEngine().service()).isInstanceOf(BookKeeperClient.class);
        byte[] read = new byte[data.length];
        try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(dir.resolve("data.bin").toUri()))) {
          in.readFully(0, read);
        }
        assertThat(read).isEqualTo(data);
        long total = fs.cacheEngine().stats().get(CacheCounter.SOURCE_BYTES);
        if (round == 0) {
          assertThat(total).isEqualTo(data.length);
        } else {
          assertThat(total).as("the second file system reads the blocks the first cached").isZero();
        }
        sourceBytes += total;
      }
    }
    assertThat(sourceBytes).isEqualTo(data.length);

    // the length of a path cached as immutable, told over Thrift (how CachingFileIO opens a file it knows only by its location);
    // the same BookKeeper: one per JVM for port 0
    conf.set("rubix.cache.freshness", "immutable");
    String path;
    try (CachingLocalFileSystem fs = new CachingLocalFileSystem()) {
      fs.initialize(URI.create("file:///"), conf);
      assertThat(fs.cacheEngine().service()).isInstanceOf(BookKeeperClient.class);
      org.apache.hadoop.fs.Path qualified = fs.makeQualified(new org.apache.hadoop.fs.Path(dir.resolve("data.bin").toUri()));
      path = qualified.toString();
      assertThat(fs.cacheEngine().immutableLength(path)).as("cached with a modification time only").isEqualTo(-1);
      try (FSDataInputStream in = fs.open(qualified)) {
        in.readFully(0, new byte[data.length]);
      }
    }
    // closed: its blocks written and committed
    try (CachingLocalFileSystem fs = new CachingLocalFileSystem()) {
      fs.initialize(URI.create("file:///"), conf);
      assertThat(fs.cacheEngine().immutableLength(path)).isEqualTo(data.length);
      assertThat(fs.cacheEngine().immutableLength(path + ".other")).isEqualTo(-1);
    }
  }

  @Test
  void aBookKeeperThatCannotStartDoesNotFailReads() throws Exception {
    Path cache = Files.createDirectories(dir.resolve("cache"));
    byte[] data = randomFile(dir.resolve("data.bin"), 200_000);
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Configuration conf = BookKeeperTestSupport.daemonConf(cache);
      conf.setBoolean("rubix.bookkeeper.embedded", true);
      conf.setInt("rubix.network.bookkeeper.server.port", taken.getLocalPort());
      conf.set("rubix.network.client.read.timeout", "300ms");
      conf.set("rubix.network.client.connect.timeout", "300ms");
      try (CachingLocalFileSystem fs = new CachingLocalFileSystem()) {
        fs.initialize(URI.create("file:///"), conf);
        byte[] read = new byte[data.length];
        try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(dir.resolve("data.bin").toUri()))) {
          in.readFully(0, read);
        }
        assertThat(read).isEqualTo(data);
        assertThat(fs.cacheEngine().stats().get(CacheCounter.FALLBACK_METADATA)).as("reads fell back to the source").isPositive();
      }
    }
  }

  @Test
  void aSecondRequestForThePortWithOtherDirectoriesFails() throws Exception {
    Path cache = Files.createDirectories(dir.resolve("cache")).toAbsolutePath();
    Path otherCache = Files.createDirectories(dir.resolve("other")).toAbsolutePath();
    // a taken port: nothing starts, and the registry still remembers what the port was asked for
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Configuration conf = BookKeeperTestSupport.daemonConf(cache);
      conf.setInt("rubix.network.bookkeeper.server.port", taken.getLocalPort());
      Configuration same = new Configuration(conf);
      Configuration other = BookKeeperTestSupport.daemonConf(otherCache);
      other.setInt("rubix.network.bookkeeper.server.port", taken.getLocalPort());

      ClientConfig first = InProcessBookKeepers.reach(conf, CacheConfig.from(conf), ClientConfig.from(conf));
      assertThat(InProcessBookKeepers.reach(same, CacheConfig.from(same), ClientConfig.from(same))).isEqualTo(first);
      assertThatThrownBy(() -> InProcessBookKeepers.reach(other, CacheConfig.from(other), ClientConfig.from(other)))
          .isInstanceOf(ConflictingCacheException.class)
          .hasMessageContaining("rubix.cache.dirs is [" + otherCache + "] here but [" + cache + "]")
          .hasMessageContaining("rubix.network.bookkeeper.server.port=" + taken.getLocalPort());
    }
  }

  private static byte[] randomFile(Path path, int size) throws Exception {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    Files.write(path, data);
    return data;
  }
}
