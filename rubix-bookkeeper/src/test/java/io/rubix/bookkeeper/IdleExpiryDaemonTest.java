package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.DataFileLayout;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rubix.cache.expire.after.idle} in the daemon: its own sweeps drop what nobody reads, and a
 * restarted daemon counts idle time from the last read its journal kept, the time it was down
 * included. Readers are caching S3A file systems; GETs are counted at the S3 server.
 */
class IdleExpiryDaemonTest {
  private static final int BLOCK = 64 * 1024;
  private static final int SIZE = 3 * BLOCK + 17;
  private static S3Server s3;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("idle");
    Configuration conf = s3.s3aConfiguration();
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://idle/"), conf)) {
      for (String name : new String[] {"fresh", "stale", "swept"}) {
        try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path(name)))) {
          out.write(content(name));
        }
      }
    }
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @Test
  void aRestartedDaemonExpiresWhatWasUnreadForTheIdleTimeTheDowntimeIncluded() throws Exception {
    Path staleJournal;
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf("1h")))) {
      read(bookKeeper, "fresh");
      read(bookKeeper, "stale");
      staleJournal = journalOf(bookKeeper, "stale");
    }
    // the daemon was down, and "stale" last read, two hours ago
    Files.setLastModifiedTime(staleJournal, FileTime.fromMillis(System.currentTimeMillis() - Duration.ofHours(2).toMillis()));

    try (BookKeeper restarted = BookKeeper.start(BookKeeperConfig.from(daemonConf("1h")))) {
      assertThat(restarted.stats()).containsEntry("rubix_cache_expirations", 1L).containsEntry("rubix_cache_expire_after_idle_seconds", 3600L);
      s3.store().reset();
      read(restarted, "fresh");
      assertThat(s3.store().gets()).as("GETs to read the file read within the hour").isZero();
      read(restarted, "stale");
      assertThat(s3.store().gets()).as("GETs to read the expired file").isPositive();
    }
  }

  @Test
  void theDaemonsOwnSweepsDropAnObjectNobodyReads() throws Exception {
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf("2s")))) {
      read(bookKeeper, "swept");
      assertThat(bookKeeper.service().topFiles(10)).hasSize(1);

      // sweeps run every second; the object expires once two seconds pass unread
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (bookKeeper.service().counters().expirations() == 0 && System.nanoTime() < deadline) {
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }

      assertThat(bookKeeper.service().counters().expirations()).isEqualTo(1);
      assertThat(bookKeeper.service().topFiles(10)).isEmpty();
      assertThat(bookKeeper.service().usage().usedBytes()).isZero();
    }
  }

  private Configuration daemonConf(String idle) {
    Configuration conf = BookKeeperTestSupport.daemonConf(cacheDir);
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    conf.set(CacheKeys.EXPIRE_AFTER_IDLE.name(), idle);
    return conf;
  }

  private void read(BookKeeper bookKeeper, String name) throws Exception {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    BookKeeperTestSupport.useDaemon(conf, cacheDir, bookKeeper.port());
    byte[] bytes = new byte[SIZE];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://idle/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path(name)))) {
      in.readFully(0, bytes);
    }
    assertThat(bytes).isEqualTo(content(name));
  }

  private static Path journalOf(BookKeeper bookKeeper, String name) {
    CachedFile file = bookKeeper.service().topFiles(10).stream().filter(f -> f.version().path().equals(path(name))).findFirst().orElseThrow();
    String data = file.dataFile();
    return Path.of(data.substring(0, data.length() - DataFileLayout.DATA_SUFFIX.length()) + ".meta");
  }

  private static String path(String name) {
    return "s3a://idle/warehouse/" + name + ".orc";
  }

  private static byte[] content(String name) {
    byte[] data = new byte[SIZE];
    new Random(name.hashCode()).nextBytes(data);
    return data;
  }
}
