package io.rubix.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConflictingCacheException;
import io.rubix.core.metadata.EmbeddedServices;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two caches of one JVM on the same directories share one metadata service only when their settings agree. */
class SharedCacheSettingsTest {
  @TempDir
  Path dir;

  @Test
  void equalSettingsShareOneService() {
    Configuration conf = CacheTestSupport.localConf(dir.resolve("cache"));
    try (EmbeddedServices.Handle first = EmbeddedServices.acquire(CacheConfig.from(conf));
        EmbeddedServices.Handle second = EmbeddedServices.acquire(CacheConfig.from(new Configuration(conf)))) {
      assertThat(second.service()).isSameAs(first.service());
    }
  }

  @Test
  void anotherBlockSizeOnTheSameDirectoriesFailsNamingBothValues() {
    Path cache = dir.resolve("cache").toAbsolutePath().normalize();
    Configuration conf = CacheTestSupport.localConf(cache);
    conf.set("rubix.cache.block.size", "64k");
    Configuration other = new Configuration(conf);
    other.set("rubix.cache.block.size", "128k");
    try (EmbeddedServices.Handle first = EmbeddedServices.acquire(CacheConfig.from(conf))) {
      assertThat(first.service().blockSize()).isEqualTo(CacheConfig.from(conf).blockSize());
      assertThatThrownBy(() -> EmbeddedServices.acquire(CacheConfig.from(other)))
          .isInstanceOf(ConflictingCacheException.class)
          .hasMessageContaining("rubix.cache.block.size is 131072 here but 65536 in the cache already open on [" + cache + "]");
    }
  }

  @Test
  void anotherCapOrLeaseTimeoutFailsToo() {
    Configuration conf = CacheTestSupport.localConf(dir.resolve("cache"));
    Configuration cap = new Configuration(conf);
    cap.set("rubix.cache.max.size", "10m");
    Configuration lease = new Configuration(conf);
    lease.set("rubix.cache.lease.timeout", "5s");
    try (EmbeddedServices.Handle first = EmbeddedServices.acquire(CacheConfig.from(conf))) {
      assertThat(first.service().blockSize()).isEqualTo(CacheConfig.from(conf).blockSize());
      assertThatThrownBy(() -> EmbeddedServices.acquire(CacheConfig.from(cap))).hasMessageContaining("rubix.cache.max.size is 10485760 here but -1");
      assertThatThrownBy(() -> EmbeddedServices.acquire(CacheConfig.from(lease))).hasMessageContaining("rubix.cache.lease.timeout is PT5S here but PT1M");
    }
  }

  @Test
  void aFileSystemWhoseSettingsConflictReadsFromTheSource() throws Exception {
    Configuration conf = CacheTestSupport.localConf(dir.resolve("cache"));
    Configuration other = new Configuration(conf);
    other.set("rubix.cache.block.size", "128k");
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("data.bin").toUri());
    byte[] data = new byte[300_000];
    new java.util.Random(7).nextBytes(data);
    Files.write(dir.resolve("data.bin"), data);
    try (CachingLocalFileSystem first = new CachingLocalFileSystem(); CachingLocalFileSystem second = new CachingLocalFileSystem()) {
      first.initialize(URI.create("file:///"), conf);
      second.initialize(URI.create("file:///"), other);
      assertThat(first.cacheEngine()).isNotNull();
      assertThat(second.cacheEngine()).as("caching is off for the conflicting file system").isNull();
      assertThat(CacheTestSupport.readAll(second, file)).isEqualTo(data);
    }
  }
}
