package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rubix.bookkeeper.cli.RubixCli;
import io.rubix.bookkeeper.metrics.Exposition;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.InsightKeys;
import io.rubix.testing.S3Server;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-table counters and the working-set estimate of a real BookKeeper read through by the caching S3A
 * file system: {@code rubix stats --json} lists the tables with the bytes each holds, /metrics labels at
 * most {@code rubix.cache.stats.prefix.entries} tables plus other, {@code rubix status} prints the top
 * tables and the working-set line, and the JMX bean answers the same.
 */
class TableInsightDaemonTest {
  private static final int BLOCK = 64 * 1024;
  private static S3Server s3;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("lake");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @Test
  void statsStatusMetricsAndJmxShowTheTablesAndTheWorkingSet() throws Exception {
    Configuration daemonConf = BookKeeperTestSupport.daemonConf(cacheDir);
    daemonConf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    daemonConf.set(InsightKeys.PREFIX_ENTRIES.name(), "2");
    daemonConf.set(InsightKeys.PREFIX_DEPTH.name(), "3");
    // small enough that the shadow caches sample every block (rate 1): their ratios are then exact
    daemonConf.set(CacheKeys.MAX_SIZE.name(), "2m");
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf))) {
      Configuration conf = clientConf(bookKeeper.port());
      Map<String, Long> tableBytes = new LinkedHashMap<>();
      // two light tables first, then two read again and again: the space-saving table keeps the heavy two
      String[][] tables = {
          {"s3a://lake/db/users", "1"}, {"s3a://lake/db/tiny", "1"}, {"s3a://lake/db/orders", "3"}, {"s3a://lake/db/items", "3"}};
      int size = 3 * BLOCK + 1000;
      for (String[] table : tables) {
        for (int file = 0; file < 2; file++) {
          String path = table[0] + "/dt=2026-01-0" + file + "/part-" + file + ".orc";
          write(conf, path, size + file * 5000);
          tableBytes.merge(table[0], (long) size + file * 5000, Long::sum);
        }
      }
      for (String[] table : tables) {
        for (int round = 0; round < Integer.parseInt(table[1]); round++) {
          for (int file = 0; file < 2; file++) {
            read(conf, table[0] + "/dt=2026-01-0" + file + "/part-" + file + ".orc", size + file * 5000);
          }
        }
      }

      Run stats = rubix("stats", "--port", Integer.toString(bookKeeper.port()), "-D", "rubix.cache.dirs=" + cacheDir, "--json");
      assertThat(stats.exitCode()).as(stats.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(stats.out());
      Map<String, JsonNode> listed = new LinkedHashMap<>();
      json.path("tables").forEach(t -> listed.put(t.path("prefix").asText(), t));
      assertThat(listed).containsOnlyKeys("s3a://lake/db/orders", "s3a://lake/db/items");
      for (String prefix : listed.keySet()) {
        JsonNode table = listed.get(prefix);
        assertThat(table.path("cachedBytes").asLong()).as("bytes cached of %s", prefix).isEqualTo(tableBytes.get(prefix));
        assertThat(table.path("filledBytes").asLong()).as("bytes filled of %s", prefix).isEqualTo(tableBytes.get(prefix));
        assertThat(table.path("hitBlocks").asLong()).as("hits of %s, read 3 times", prefix).isPositive();
        assertThat(table.path("missBlocks").asLong()).as("misses of %s: its 8 blocks granted once", prefix).isEqualTo(8);
        assertThat(table.path("evictions").asLong()).isZero();
      }
      JsonNode other = json.path("otherTables");
      assertThat(other.path("prefix").asText()).isEqualTo("other");
      assertThat(other.path("cachedBytes").asLong()).isEqualTo(tableBytes.get("s3a://lake/db/users") + tableBytes.get("s3a://lake/db/tiny"));
      assertThat(other.path("missBlocks").asLong()).isEqualTo(16);
      long total = tableBytes.values().stream().mapToLong(Long::longValue).sum();
      JsonNode workingSet = json.path("workingSet");
      assertThat(workingSet.path("distinctBytes").asLong()).as("every block read, once each").isEqualTo(total);
      assertThat(workingSet.path("windowSeconds").asLong()).isEqualTo(3600);
      assertThat(workingSet.path("sampleRate").asDouble()).isEqualTo(1.0);
      // each table's blocks were all missed once; orders and items were then read twice more from the cache
      assertThat(workingSet.path("observedHitRatio").asDouble()).isEqualTo(0.5);
      assertThat(workingSet.path("shadowHitRatio").path("1x").asDouble()).as("an LRU of the same size, which evicted nothing either").isEqualTo(0.5);
      assertThat(workingSet.path("shadowHitRatio").path("2x").asDouble()).isEqualTo(0.5);
      assertThat(json.path("counters").path("rubix_working_set_bytes").asLong()).isEqualTo(total);

      Exposition metrics = Exposition.scrape(bookKeeper.metricsPort());
      Set<String> labels = new TreeSet<>();
      Matcher label = Pattern.compile("table=\"([^\"]*)\"").matcher(metrics.body());
      while (label.find()) {
        labels.add(label.group(1));
      }
      assertThat(labels).as("table labels: 2 entries plus other").containsExactly("other", "s3a://lake/db/items", "s3a://lake/db/orders");
      assertThat(metrics.value("rubix_table_cached_bytes{table=\"s3a://lake/db/orders\"}")).isEqualTo(tableBytes.get("s3a://lake/db/orders").doubleValue());
      assertThat(metrics.value("rubix_working_set_bytes")).isEqualTo((double) total);
      assertThat(metrics.series()).containsKeys("rubix_shadow_hit_ratio{size=\"0.5x\"}", "rubix_shadow_hit_ratio{size=\"2x\"}",
          "rubix_shadow_observed_hit_ratio");

      Run status = rubix("status", "--port", Integer.toString(bookKeeper.port()), "-D", "rubix.cache.dirs=" + cacheDir);
      assertThat(status.exitCode()).as(status.err()).isZero();
      assertThat(status.out()).contains("working set 1.5 MiB distinct in the last 01:00:00 (", "of the capacity, 2.0 MiB)",
          "if sized    0.5x/1x/2x the capacity, an LRU cache would have hit 50.0%/50.0%/50.0% of the bytes (this cache: 50.0%", "top tables  (by bytes cached",
          "s3a://lake/db/orders\n", "s3a://lake/db/items\n", "other\n");

      ObjectName bean = new ObjectName("io.rubix:type=CacheInsight,name=BookKeeper,port=" + bookKeeper.port());
      TabularData cached = (TabularData) ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "TableCachedBytes");
      Map<String, Long> jmx = new LinkedHashMap<>();
      for (Object row : cached.values()) {
        CompositeData data = (CompositeData) row;
        jmx.put((String) data.get("key"), (Long) data.get("value"));
      }
      assertThat(jmx).containsEntry("s3a://lake/db/orders", tableBytes.get("s3a://lake/db/orders")).containsKey("other").hasSize(3);
      assertThat((Long) ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "WorkingSetBytes")).isEqualTo(total);
    }
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run rubix(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new RubixCli(name -> null).execute(args, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  private static byte[] content(int size) {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    return data;
  }

  private static void write(Configuration conf, String path, int size) throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf); FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(content(size));
    }
  }

  private static void read(Configuration conf, String path, int size) throws Exception {
    byte[] bytes = new byte[size];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf); FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, bytes);
    }
    assertThat(bytes).isEqualTo(content(size));
  }
}
