package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.readAll;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-file-system JMX bean shows the cache's counters and space, and goes away with the file system. */
class CacheJmxTest {
  @TempDir
  Path tmp;

  @Test
  void beanReportsCountersAndIsUnregisteredOnClose() throws Exception {
    Configuration conf = localConf(tmp.resolve("cache"));
    conf.set("rubix.cache.jmx.enabled", "true");
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name;
    byte[] data = new byte[3 * 1024 * 1024];
    new Random(3).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(tmp.resolve("data.bin").toUri());
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      write(fs, file, data);
      try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(file)) {
        in.readFully(0, new byte[data.length]);
        awaitWrites(((CachingFileSystem) fs).cacheEngine(), CacheTestSupport.version(in));
      }
      readAll(fs, file);
      Set<ObjectName> names = server.queryNames(new ObjectName("io.rubix:type=Cache,*"), null);
      name = names.stream().filter(n -> n.getKeyProperty("name").contains("file://")).findFirst().orElseThrow();
      TabularData counters = (TabularData) server.getAttribute(name, "Counters");
      Map<String, Long> values = new java.util.HashMap<>();
      for (Object row : counters.values()) {
        CompositeData entry = (CompositeData) row;
        values.put((String) entry.get("key"), (Long) entry.get("value"));
      }
      assertThat(values).containsEntry("rubix_cache_hit_bytes", (long) data.length);
      // charged by 4 KiB allocation unit plus one unit for the object
      assertThat((Long) server.getAttribute(name, "CacheUsedBytes")).isEqualTo(data.length + 4096L);
      assertThat((Double) server.getAttribute(name, "HitRatio")).isEqualTo(0.5);
    }
    assertThat(server.isRegistered(name)).isFalse();
  }
}
