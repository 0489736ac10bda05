package io.rubix.iceberg;

import static io.rubix.iceberg.IcebergFixtures.cacheProperties;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.CacheEngine;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One engine per JVM per cache and client settings, closed with its last lease. */
class SharedEnginesTest {
  @TempDir
  Path tmp;

  private Configuration settings(Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(cacheProperties(tmp.resolve("cache"), 4096));
    properties.putAll(extra);
    return SharedEngines.settings(properties, new Configuration(false));
  }

  @Test
  void keysThatDoNotChangeTheEngineShareIt() {
    // rubix-spark's plugin rewrites its executor list in the Hadoop configuration as executors come and go
    try (SharedEngines.Lease first = SharedEngines.acquire(settings(Map.of()));
        SharedEngines.Lease second = SharedEngines.acquire(settings(Map.of("rubix.spark.executor.hosts", "node-1=10.0.0.1")))) {
      assertThat(second.engine().orElseThrow()).isSameAs(first.engine().orElseThrow());
      try (SharedEngines.Lease other = SharedEngines.acquire(settings(Map.of("rubix.cache.fetch.threads", "3")))) {
        assertThat(other.engine().orElseThrow()).isNotSameAs(first.engine().orElseThrow());
      }
    }
  }

  @Test
  void theLastLeaseClosesTheEngine() {
    SharedEngines.Lease first = SharedEngines.acquire(settings(Map.of()));
    CacheEngine engine = first.engine().orElseThrow();
    SharedEngines.Lease second = SharedEngines.acquire(settings(Map.of()));
    first.close();
    first.close();
    try (SharedEngines.Lease third = SharedEngines.acquire(settings(Map.of()))) {
      assertThat(third.engine().orElseThrow()).as("still leased by the second").isSameAs(engine);
      second.close();
    }
    try (SharedEngines.Lease fresh = SharedEngines.acquire(settings(Map.of()))) {
      assertThat(fresh.engine().orElseThrow()).as("a new engine after the last lease").isNotSameAs(engine);
    }
  }

  @Test
  void aDisabledCacheHasNoEngine() {
    try (SharedEngines.Lease lease = SharedEngines.acquire(settings(Map.of("rubix.cache.enabled", "false")))) {
      assertThat(lease.engine()).isEmpty();
    }
  }
}
