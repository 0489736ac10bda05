package io.rubix.core.insight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.InsightConfig;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.InsightKeys;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class TablePrefixTest {
  @Test
  void depthCountsTheBucketAndNeverTheObjectName() {
    TablePrefix three = new TablePrefix(3);
    assertThat(three.of("s3a://lake/db/orders/part-0.orc")).isEqualTo("s3a://lake/db/orders");
    assertThat(three.of("s3a://lake/db/orders/dt=1/part-0.orc")).isEqualTo("s3a://lake/db/orders");
    assertThat(three.of("s3a://lake/a/b/file")).isEqualTo("s3a://lake/a/b");
    assertThat(three.of("s3a://lake/a/file")).isEqualTo("s3a://lake/a");
    assertThat(three.of("s3a://lake/file")).isEqualTo("s3a://lake");
    assertThat(three.of("hdfs://nn:8020/warehouse/db/t/f")).isEqualTo("hdfs://nn:8020/warehouse/db");
    assertThat(new TablePrefix(1).of("s3a://lake/db/orders/part-0")).isEqualTo("s3a://lake");
    assertThat(new TablePrefix(2).of("s3a://lake/db/orders/part-0")).isEqualTo("s3a://lake/db");
    assertThat(new TablePrefix(64).of("s3a://lake/db/orders/part-0")).isEqualTo("s3a://lake/db/orders");
  }

  @Test
  void pathsWithoutAuthorityCountTheirFirstDirectory() {
    TablePrefix two = new TablePrefix(2);
    assertThat(two.of("file:/tmp/t/u/f")).isEqualTo("file:/tmp/t");
    assertThat(two.of("/tmp/t/u/f")).isEqualTo("/tmp/t");
    assertThat(two.of("file:/f")).isEqualTo("file:/");
    assertThat(two.of("/f")).isEqualTo("/");
    assertThat(two.of("s3a://lake//db//t/f")).isEqualTo("s3a://lake//db");
  }

  @Test
  void badDepthNamesTheKeyAndTheAllowedValues() {
    Configuration conf = new Configuration(false);
    conf.set(InsightKeys.PREFIX_DEPTH.name(), "0");
    assertThatThrownBy(() -> InsightConfig.from(conf)).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cache.stats.prefix.depth").hasMessageContaining("[1, 64]");
    conf.set(InsightKeys.PREFIX_DEPTH.name(), "three");
    assertThatThrownBy(() -> InsightConfig.from(conf)).hasMessageContaining("rubix.cache.stats.prefix.depth");
    conf.set(InsightKeys.PREFIX_DEPTH.name(), "4");
    conf.set(InsightKeys.PREFIX_ENTRIES.name(), "1001");
    assertThatThrownBy(() -> InsightConfig.from(conf)).hasMessageContaining("rubix.cache.stats.prefix.entries").hasMessageContaining("[1, 1000]");
    conf.set(InsightKeys.PREFIX_ENTRIES.name(), "10");
    conf.set(InsightKeys.SHADOW_WINDOW.name(), "1s");
    assertThatThrownBy(() -> InsightConfig.from(conf)).hasMessageContaining("rubix.cache.shadow.window");
    conf.set(InsightKeys.SHADOW_WINDOW.name(), "10m");
    assertThat(InsightConfig.from(conf)).isEqualTo(new InsightConfig(4, 10, Duration.ofMinutes(10), 16384));
    assertThat(InsightConfig.defaults()).isEqualTo(new InsightConfig(3, 50, Duration.ofHours(1), 16384));
  }
}
