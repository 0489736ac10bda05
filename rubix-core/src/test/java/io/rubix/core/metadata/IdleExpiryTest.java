package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.core.metadata.journal.MetadataJournal;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rubix.cache.expire.after.idle} through the real service and its journal files: an object
 * version unread for the idle time is dropped and its space given back, one being fetched into is
 * not, and a restart goes on counting from the last read the journal kept (which also restores the
 * LRU order). The wall clock is the test's, starting at the real time, because the journal's files
 * carry real modification times.
 */
class IdleExpiryTest {
  private static final int BLOCK = 4096;
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration HOUR = Duration.ofHours(1);

  @TempDir
  Path root;

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long start = System.currentTimeMillis();
  private final AtomicLong wall = new AtomicLong(start);

  private InProcessMetadataService service(long capacity, Duration idle) {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(capacity)).leaseTimeout(LEASE)
        .nanoClock(nanos::get).journal(new FileMetadataJournal(BLOCK)).expireAfterIdle(idle).wallMillis(wall::get).build());
  }

  private static ObjectVersion version(String name) {
    return new ObjectVersion("s3a://lake/" + name, 2L * BLOCK, 1, name);
  }

  private static BlockRange cache(InProcessMetadataService service, ObjectVersion version) throws Exception {
    BlockRange granted = service.acquire(version, 0, 2);
    assertThat(TestBlocks.commit(service, granted, BLOCK, 0, 1)).isEqualTo(2);
    return granted;
  }

  private static boolean cached(InProcessMetadataService service, ObjectVersion version) {
    return service.status(version, 0, 2).allCached(0, 2);
  }

  private void minutesLater(long minutes) {
    wall.addAndGet(Duration.ofMinutes(minutes).toMillis());
  }

  @Test
  void anObjectUnreadForTheIdleTimeIsDroppedAndItsSpaceGivenBack() throws Exception {
    try (InProcessMetadataService service = service(1 << 20, HOUR)) {
      ObjectVersion read = version("read");
      ObjectVersion unread = version("unread");
      cache(service, read);
      Path unreadFile = Path.of(cache(service, unread).dataFile());
      long usedWithBoth = service.usage().usedBytes();

      minutesLater(40);
      assertThat(cached(service, read)).isTrue();
      minutesLater(25);
      assertThat(service.expireIdle()).isEqualTo(1);

      assertThat(cached(service, read)).as("read 25 minutes ago").isTrue();
      assertThat(service.status(unread, 0, 2).state(0)).as("unread for 65 minutes").isEqualTo(BlockState.MISSING);
      assertThat(unreadFile).doesNotExist();
      assertThat(FileMetadataJournal.metaFile(unreadFile)).doesNotExist();
      assertThat(service.usage().usedBytes()).isLessThan(usedWithBoth);
      assertThat(service.counters().expirations()).isEqualTo(1);

      minutesLater(61);
      assertThat(service.expireIdle()).isEqualTo(1);
      assertThat(service.usage().usedBytes()).isZero();
    }
  }

  @Test
  void anObjectBeingFetchedIntoIsNotExpired() throws Exception {
    try (InProcessMetadataService service = service(1 << 20, HOUR)) {
      ObjectVersion version = version("slow-fetch");
      BlockRange granted = service.acquire(version, 0, 2);
      minutesLater(90);

      assertThat(service.expireIdle()).isZero();
      assertThat(TestBlocks.commit(service, granted, BLOCK, 0, 1)).as("the grantee's commit").isEqualTo(2);

      minutesLater(61);
      assertThat(service.expireIdle()).isEqualTo(1);
    }
  }

  @Test
  void aRestartGoesOnCountingFromTheLastReadTheJournalKept() throws Exception {
    ObjectVersion read = version("read-before-restart");
    ObjectVersion unread = version("unread-before-restart");
    try (InProcessMetadataService service = service(1 << 20, HOUR)) {
      cache(service, read);
      cache(service, unread);
      minutesLater(50);
      assertThat(cached(service, read)).isTrue();
      assertThat(service.expireIdle()).as("the sweep that journals the read").isZero();
    }

    minutesLater(50); // down for 50 minutes: "unread" was last read 100 minutes ago, "read" 50
    try (InProcessMetadataService restarted = service(1 << 20, HOUR)) {
      assertThat(restarted.counters().expirations()).as("expired at start").isEqualTo(1);
      assertThat(restarted.status(unread, 0, 2).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(restarted.status(read, 0, 2).allCached(0, 2)).isTrue();
    }
  }

  @Test
  void withoutExpiryARestartKeepsEverything() throws Exception {
    ObjectVersion version = version("kept");
    try (InProcessMetadataService service = service(1 << 20, Duration.ZERO)) {
      cache(service, version);
      minutesLater(60 * 24 * 365);
      assertThat(service.expireIdle()).isZero();
    }
    try (InProcessMetadataService restarted = service(1 << 20, Duration.ZERO)) {
      assertThat(cached(restarted, version)).isTrue();
      assertThat(restarted.counters().expirations()).isZero();
    }
  }

  @Test
  void aRestartRecoversTheLeastRecentlyUsedOrder() throws Exception {
    long oneObject = DiskCharge.OBJECT_OVERHEAD + 2 * DiskCharge.ofBlock(BLOCK);
    ObjectVersion oldest = version("oldest");
    ObjectVersion middle = version("middle");
    ObjectVersion newest = version("newest");
    try (InProcessMetadataService service = service(3 * oneObject, Duration.ofDays(1))) {
      // cached in the order newest, oldest, middle; read afterwards in the order middle, newest
      cache(service, newest);
      cache(service, oldest);
      cache(service, middle);
      minutesLater(10);
      assertThat(cached(service, middle)).isTrue();
      minutesLater(10);
      assertThat(cached(service, newest)).isTrue();
      assertThat(service.expireIdle()).isZero();
    }
    try (InProcessMetadataService restarted = service(3 * oneObject, Duration.ofDays(1))) {
      cache(restarted, version("first-newcomer"));
      assertThat(restarted.status(oldest, 0, 2).state(0)).as("least recently used").isEqualTo(BlockState.MISSING);
      cache(restarted, version("second-newcomer"));
      assertThat(restarted.status(middle, 0, 2).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(restarted.status(newest, 0, 2).allCached(0, 2)).isTrue();
    }
  }

  @Test
  void theJournalKeepsTheLastUseInItsModificationTimeAcrossATornRecord() throws Exception {
    ObjectVersion version = version("torn");
    Path meta;
    try (InProcessMetadataService service = service(1 << 20, HOUR)) {
      meta = FileMetadataJournal.metaFile(Path.of(cache(service, version).dataFile()));
      minutesLater(30);
      assertThat(cached(service, version)).isTrue();
      service.expireIdle();
    }
    Files.write(meta, new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
    Files.setLastModifiedTime(meta, java.nio.file.attribute.FileTime.fromMillis(wall.get()));

    List<MetadataJournal.Recovered> recovered = new FileMetadataJournal(BLOCK).recover(List.of(root), BLOCK).objects();

    assertThat(recovered).singleElement().extracting(MetadataJournal.Recovered::lastUsedMillis).isEqualTo(wall.get());
    assertThat(Files.getLastModifiedTime(meta).toMillis()).as("after the torn record was cut off").isEqualTo(wall.get());
  }

  @Test
  void aBadIdleTimeNamesTheKey() {
    Configuration conf = new Configuration(false);
    conf.set(CacheKeys.DIRS.name(), root.toString());
    conf.set(CacheKeys.EXPIRE_AFTER_IDLE.name(), "a week");

    assertThatThrownBy(() -> CacheConfig.from(conf)).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining(CacheKeys.EXPIRE_AFTER_IDLE.name()).hasMessageContaining("a week").hasMessageContaining("duration");
  }

  @Test
  void sweepsComeAboutEveryTenthOfTheIdleTimeWithinBounds() {
    assertThat(new IdleExpiry(Duration.ofSeconds(2), wall::get).sweepInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(new IdleExpiry(Duration.ofMinutes(30), wall::get).sweepInterval()).isEqualTo(Duration.ofMinutes(3));
    assertThat(new IdleExpiry(Duration.ofDays(7), wall::get).sweepInterval()).isEqualTo(Duration.ofMinutes(10));
    assertThat(new IdleExpiry(Duration.ZERO, wall::get).enabled()).isFalse();
  }
}
