package io.rubix.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CacheConfigTest {
  @TempDir
  Path dir;

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", dir.toString());
    return conf;
  }

  @Test
  void defaults() {
    CacheConfig config = CacheConfig.from(conf());
    assertThat(config.enabled()).isTrue();
    assertThat(config.blockSize()).isEqualTo(64 << 10);
    assertThat(config.cacheDirs()).containsExactly(dir);
    assertThat(config.freshness()).isEqualTo(Freshness.STRICT);
    assertThat(config.freshnessTtl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.strictMode()).isFalse();
    assertThat(config.usagePercentage()).isEqualTo(80);
    assertThat(config.maxSizePerDisk()).isEqualTo(-1);
    assertThat(config.inFlightPolicy()).isEqualTo(InFlightPolicy.WAIT);
    assertThat(config.evictionPolicy()).isEqualTo(EvictionPolicy.LRU);
  }

  @Test
  void sizesDurationsAndEnumsParse() {
    Configuration conf = conf();
    conf.set("rubix.cache.block.size", "64k");
    conf.set("rubix.cache.max.size", "2g");
    conf.set("rubix.cache.freshness", "TTL");
    conf.set("rubix.cache.freshness.ttl", "5m");
    conf.set("rubix.cache.checksum.verify", "never");
    conf.set("rubix.cache.eviction.policy", "TinyLFU");
    CacheConfig config = CacheConfig.from(conf);
    assertThat(config.blockSize()).isEqualTo(64 * 1024);
    assertThat(config.maxSizePerDisk()).isEqualTo(2L << 30);
    assertThat(config.freshness()).isEqualTo(Freshness.TTL);
    assertThat(config.freshnessTtl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.checksumVerification()).isEqualTo(ChecksumVerification.NEVER);
    assertThat(config.evictionPolicy()).isEqualTo(EvictionPolicy.TINYLFU);
  }

  @Test
  void badValuesNameKeyValueAndWhatIsAllowed() {
    assertInvalid("rubix.cache.block.size", "1x", "rubix.cache.block.size", "'1x'", "size in bytes");
    assertInvalid("rubix.cache.block.size", "1k", "rubix.cache.block.size", "'1k'", "[4096, 268435456]");
    assertInvalid("rubix.cache.freshness", "sometimes", "rubix.cache.freshness", "'sometimes'", "[strict, ttl, immutable]");
    assertInvalid("rubix.cache.eviction.policy", "lfu", "rubix.cache.eviction.policy", "'lfu'", "[lru, tinylfu]");
    assertInvalid("rubix.cache.strict.mode", "yes", "rubix.cache.strict.mode", "'yes'", "true or false");
    assertInvalid("rubix.cache.usage.percentage", "120", "rubix.cache.usage.percentage", "'120'", "[1, 100]");
    assertInvalid("rubix.cache.freshness.ttl", "soon", "rubix.cache.freshness.ttl", "'soon'", "duration");
    assertInvalid("rubix.cache.dirs", "relative/dir", "rubix.cache.dirs", "'relative/dir'", "absolute");
  }

  @Test
  void noDirectoryIsAnErrorUnlessDisabled() {
    assertThatThrownBy(() -> CacheConfig.from(new Configuration(false)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cache.dirs");
    Configuration disabled = new Configuration(false);
    disabled.set("rubix.cache.enabled", "false");
    assertThat(CacheConfig.from(disabled).enabled()).isFalse();
  }

  @Test
  void rubixPrefixListSelectsExistingDisks() throws Exception {
    Files.createDirectories(dir.resolve("disk0"));
    Files.createDirectories(dir.resolve("disk2"));
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirprefix.list", dir.resolve("disk").toString());
    conf.set("rubix.cache.max.disks", "3");
    CacheConfig config = CacheConfig.from(conf);
    assertThat(config.cacheDirs()).containsExactly(dir.resolve("disk0/fcache"), dir.resolve("disk2/fcache"));
  }

  private void assertInvalid(String key, String value, String... messageParts) {
    Configuration conf = conf();
    conf.set(key, value);
    assertThatThrownBy(() -> CacheConfig.from(conf))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContainingAll(messageParts);
  }
}
