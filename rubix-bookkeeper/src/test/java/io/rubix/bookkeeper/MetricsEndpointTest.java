package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.rubix.bookkeeper.metrics.Exposition;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real daemon's {@code /metrics} over HTTP, through the Prometheus client's writers: every family typed
 * (counter or gauge, never untyped), with help, counters ending in {@code _total}, the whole answer valid
 * Prometheus text or, on request, OpenMetrics; every entry of the daemon's stats map on it with the same
 * value; and the values move when engines read through the daemon.
 */
class MetricsEndpointTest {
  private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";
  /** Stats-map keys exposed under another name (renamed once, with the move to the Prometheus client). */
  private static final Map<String, String> RENAMED = Map.of(
      "rubix_bookkeeper_started_at_millis", "rubix_bookkeeper_start_time_seconds",
      "rubix_transfer_bytes_served", "rubix_transfer_served_bytes_total");
  private static final int SIZE = 3 * 1024 * 1024 + 17;
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

  private BookKeeper start() throws Exception {
    Configuration conf = BookKeeperTestSupport.daemonConf(cacheDir);
    conf.set("rubix.cache.rules", "dims");
    conf.set("rubix.cache.rule.dims.paths", "s3a://bucket/dims/");
    conf.set("rubix.cache.rule.dims.quota", "64m");
    return BookKeeper.start(BookKeeperConfig.from(conf));
  }

  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.rules", "dims");
    conf.set("rubix.cache.rule.dims.paths", "s3a://bucket/dims/");
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  /**
   * Writes {@code path} and reads it {@code passes} times, each pass through a file system of its own:
   * closing one waits for its fills to be committed, so every pass after the first reads from the cache
   * (a second pass on the same instance could overtake the first one's fills).
   */
  private static void writeAndRead(Configuration conf, String path, int passes) throws Exception {
    byte[] data = new byte[SIZE];
    new Random(7).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
        FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    byte[] read = new byte[SIZE];
    for (int i = 0; i < passes; i++) {
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
          FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
        in.readFully(0, read);
      }
      assertThat(read).isEqualTo(data);
    }
  }

  @Test
  void everyMetricIsTypedWithHelpAndCountersEndInTotal() throws Exception {
    try (BookKeeper bookKeeper = start()) {
      writeAndRead(clientConf(bookKeeper.port()), "s3a://bucket/dims/d.bin", 2);
      Exposition text = Exposition.scrape(bookKeeper.metricsPort());
      assertThat(text.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
      assertThat(text.body()).doesNotContain("untyped");
      assertThat(text.families()).hasSizeGreaterThan(60);
      text.families().values().forEach(family -> {
        assertThat(family.type()).as(family.name()).isIn("counter", "gauge");
        assertThat(family.help()).as("help of %s", family.name()).isNotBlank();
        assertThat(family.name().endsWith("_total")).as("%s is a %s", family.name(), family.type()).isEqualTo(family.type().equals("counter"));
        assertThat(family.name()).as("Prometheus names start with the project's prefix").startsWith("rubix_");
      });
      // units last, before _total
      assertThat(text.families()).containsKeys("rubix_cache_evictions_total", "rubix_engines_cache_hit_bytes_total",
          "rubix_transfer_served_bytes_total", "rubix_bookkeeper_start_time_seconds", "rubix_table_granted_bytes_total");
      assertThat(text.families().get("rubix_cache_used_bytes").type()).isEqualTo("gauge");
      assertThat(text.families().get("rubix_bookkeeper_leases_waiting").type()).isEqualTo("gauge");
      assertThat(text.families().get("rubix_rule_evictions_total").type()).isEqualTo("counter");
      assertThat(text.families().get("rubix_table_cached_bytes").type()).isEqualTo("gauge");

      // labels where they belong
      assertThat(text.value("rubix_cache_disk_used_bytes{dir=\"" + cacheDir.resolve(BookKeeper.ROOT) + "\"}")).isPositive();
      assertThat(text.value("rubix_rule_used_bytes{rule=\"dims\"}")).isPositive();
      assertThat(text.value("rubix_rule_quota_bytes{rule=\"dims\"}")).isEqualTo(64 << 20);
      assertThat(text.value("rubix_table_hit_blocks_total{table=\"s3a://bucket/dims\"}")).isPositive();
      assertThat(text.series()).containsKeys("rubix_shadow_hit_ratio{size=\"0.5x\"}", "rubix_shadow_hit_ratio{size=\"1x\"}",
          "rubix_shadow_hit_ratio{size=\"2x\"}");
      // charged by 4 KiB allocation unit, plus one unit per object: 3 whole blocks, the 17-byte tail, the object
      assertThat(text.value("rubix_cache_used_bytes")).isEqualTo(3 * 1024 * 1024 + 4096 + 4096);
      assertThat(text.value("rubix_bookkeeper_start_time_seconds")).isCloseTo(System.currentTimeMillis() / 1000.0, within(600.0));
    }
  }

  @Test
  void everyStatsEntryIsOnMetricsWithItsValue() throws Exception {
    try (BookKeeper bookKeeper = start()) {
      writeAndRead(clientConf(bookKeeper.port()), "s3a://bucket/dims/s.bin", 1);
      Map<String, Long> stats = bookKeeper.stats();
      Exposition text = Exposition.scrape(bookKeeper.metricsPort());
      assertThat(stats).containsKeys("rubix_transfer_requests", "rubix_peer_fill_requests", "rubix_engines_cache_hit_bytes", "rule.dims.used_bytes");
      stats.forEach((key, value) -> {
        if (key.startsWith("rule.")) {
          String[] parts = key.split("\\.");
          String suffix = parts[2].equals("evictions") || parts[2].equals("denials") ? "_total" : "";
          assertThat(text.value("rubix_rule_" + parts[2] + suffix + "{rule=\"" + parts[1] + "\"}")).as(key).isEqualTo(value.doubleValue());
        } else if (key.equals("rubix_bookkeeper_started_at_millis")) {
          assertThat(text.value(RENAMED.get(key))).isEqualTo(value / 1000.0);
        } else {
          String name = RENAMED.getOrDefault(key, text.families().containsKey(key) ? key : key + "_total");
          assertThat(text.value(name)).as(key).isEqualTo(value.doubleValue());
        }
      });
    }
  }

  @Test
  void valuesMoveWithReads() throws Exception {
    try (BookKeeper bookKeeper = start()) {
      Exposition before = Exposition.scrape(bookKeeper.metricsPort());
      writeAndRead(clientConf(bookKeeper.port()), "s3a://bucket/move.bin", 2);
      Exposition after = Exposition.scrape(bookKeeper.metricsPort());
      for (String counter : new String[] {"rubix_bookkeeper_status_calls_total", "rubix_bookkeeper_acquire_calls_total",
          "rubix_bookkeeper_commit_calls_total", "rubix_engines_cache_hit_bytes_total", "rubix_engines_cache_miss_bytes_total",
          "rubix_engines_source_bytes_total", "rubix_engines_reports_total"}) {
        assertThat(after.value(counter)).as(counter).isGreaterThan(before.value(counter));
      }
      assertThat(before.value("rubix_cache_used_bytes")).isZero();
      assertThat(after.value("rubix_cache_used_bytes")).isEqualTo(3 * 1024 * 1024 + 4096 + 4096);
      assertThat(after.value("rubix_cache_objects")).isEqualTo(1);
      assertThat(after.value("rubix_engines_cache_hit_bytes_total")).as("one warm pass").isGreaterThanOrEqualTo(SIZE);
    }
  }

  @Test
  void openMetricsWhenTheScraperAsksForIt() throws Exception {
    try (BookKeeper bookKeeper = start()) {
      writeAndRead(clientConf(bookKeeper.port()), "s3a://bucket/dims/o.bin", 1);
      Exposition text = Exposition.scrape(bookKeeper.metricsPort());
      // what Prometheus 2.x and 3.x send by default
      Exposition open = Exposition.scrape(bookKeeper.metricsPort(),
          "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
      assertThat(open.contentType()).isEqualTo(OPENMETRICS);
      assertThat(open.body()).endsWith("# EOF\n").doesNotContain("untyped");
      open.families().values().forEach(family -> {
        assertThat(family.type()).as(family.name()).isIn("counter", "gauge");
        assertThat(family.name()).as("OpenMetrics names a counter family without _total").doesNotEndWith("_total");
        assertThat(family.help()).as("help of %s", family.name()).isNotBlank();
      });
      assertThat(open.families().get("rubix_cache_used_bytes").unit()).isEqualTo("bytes");
      assertThat(open.families().get("rubix_engines_cache_hit_bytes").unit()).isEqualTo("bytes");
      assertThat(open.families().get("rubix_engines_cache_hit_bytes").type()).isEqualTo("counter");
      // the same series in both formats (the counters' values may have moved between the two scrapes: none here, nothing reads)
      assertThat(open.series().keySet()).isEqualTo(text.series().keySet());
      open.series().forEach((series, value) -> {
        if (!series.startsWith("rubix_shadow_")) {
          assertThat(value).as(series).isEqualTo(text.series().get(series));
        }
      });
    }
  }

  @Test
  void protobufRequestsGetTextAndOnlyGetIsServed() throws Exception {
    try (BookKeeper bookKeeper = start()) {
      Exposition protobuf = Exposition.scrape(bookKeeper.metricsPort(),
          "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3");
      assertThat(protobuf.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
      assertThat(protobuf.families()).containsKey("rubix_cache_used_bytes");
      HttpResponse<String> post = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bookKeeper.metricsPort() + "/metrics"))
          .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }
}
