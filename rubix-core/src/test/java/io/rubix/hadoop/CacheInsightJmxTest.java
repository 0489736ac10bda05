package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.readAll;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spi.config.InsightKeys;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.TableStats;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** In embedded mode the in-process service's per-table counters and working set are in a JMX bean of the file system. */
class CacheInsightJmxTest {
  @TempDir
  Path tmp;

  @Test
  void embeddedModeReportsTablesAndTheWorkingSetInJmx() throws Exception {
    Configuration conf = localConf(tmp.resolve("cache"));
    conf.set("rubix.cache.jmx.enabled", "true");
    conf.set(InsightKeys.PREFIX_DEPTH.name(), "64"); // a table is the file's directory
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    byte[] data = new byte[3 * 1024 * 1024 + 100];
    new Random(5).nextBytes(data);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(tmp.resolve("orders").resolve("part-0").toUri());
    ObjectName name;
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      write(fs, file, data);
      String table;
      try (FSDataInputStream in = fs.open(file)) {
        in.readFully(0, new byte[data.length]);
        awaitWrites(((CachingFileSystem) fs).cacheEngine(), CacheTestSupport.version(in));
        String path = CacheTestSupport.version(in).path();
        table = path.substring(0, path.lastIndexOf('/'));
      }
      readAll(fs, file);

      CacheInsightReport report = ((CachingFileSystem) fs).cacheEngine().insights().orElseThrow().insight();
      assertThat(report.tables()).extracting(TableStats::prefix).containsExactly(table);
      assertThat(report.tables().get(0).cachedBytes()).isEqualTo(data.length);
      assertThat(report.tables().get(0).hitBlocks()).isPositive();

      name = server.queryNames(new ObjectName("io.rubix:type=CacheInsight,*"), null).stream()
          .filter(n -> n.getKeyProperty("name").contains("file://")).findFirst().orElseThrow();
      assertThat(tabular(server, name, "TableCachedBytes")).containsEntry(table, (long) data.length).containsEntry(TableStats.OTHER, 0L);
      assertThat(tabular(server, name, "TableFilledBytes")).containsEntry(table, (long) data.length);
      assertThat((Long) server.getAttribute(name, "WorkingSetBytes")).isEqualTo(data.length);
      assertThat((Long) server.getAttribute(name, "WorkingSetWindowSeconds")).isEqualTo(3600);
    }
    assertThat(server.isRegistered(name)).isFalse();
  }

  private static Map<String, Long> tabular(MBeanServer server, ObjectName name, String attribute) throws Exception {
    Map<String, Long> values = new HashMap<>();
    for (Object row : ((TabularData) server.getAttribute(name, attribute)).values()) {
      CompositeData entry = (CompositeData) row;
      values.put((String) entry.get("key"), (Long) entry.get("value"));
    }
    return values;
  }
}
