package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheUsage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-pass scan larger than the cache against a hot set read again and again, through the real
 * service and its files, under both eviction policies: LRU loses the hot set (which shows the test
 * can fail), TinyLFU keeps it, and the cap holds throughout.
 */
class ScanResistanceTest {
  private static final int BLOCK = 4096;
  private static final long UNIT = BLOCK + DiskCharge.OBJECT_OVERHEAD;
  private static final Duration LEASE = Duration.ofSeconds(10);

  @TempDir
  Path root;

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  private InProcessMetadataService service(EvictionPolicy policy, long capacity) {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(capacity)).leaseTimeout(LEASE)
        .nanoClock(clock::get).evictionPolicy(policy).build());
  }

  @Test
  void underTinyLfuAScanLargerThanTheCacheLeavesTheHotSetCached() throws Exception {
    try (InProcessMetadataService service = service(EvictionPolicy.TINYLFU, 64 * UNIT)) {
      List<ObjectVersion> hot = readHotSetThenScan(service);

      for (ObjectVersion version : hot) {
        assertThat(service.status(version, 0, 2).allCached(0, 2)).as("%s after the scan", version.path()).isTrue();
      }
      assertThat(service.counters().admissionRejections()).isPositive();
    }
  }

  @Test
  void underLruTheSameScanEvictsTheHotSet() throws Exception {
    try (InProcessMetadataService service = service(EvictionPolicy.LRU, 64 * UNIT)) {
      List<ObjectVersion> hot = readHotSetThenScan(service);

      for (ObjectVersion version : hot) {
        assertThat(service.status(version, 0, 2).allCached(0, 2)).as("%s after the scan", version.path()).isFalse();
      }
      assertThat(service.counters().admissionRejections()).isZero();
    }
  }

  @Test
  void anObjectNoLongerReadAgesOutAndIsEvicted() throws Exception {
    try (InProcessMetadataService service = service(EvictionPolicy.TINYLFU, 4 * UNIT)) {
      ObjectVersion old = new ObjectVersion("s3a://bucket/dim/last-year", 3L * BLOCK, 1, "old");
      for (int i = 0; i < 20; i++) {
        read(service, old, 0, 3);
      }
      ObjectVersion current = new ObjectVersion("s3a://bucket/dim/this-year", 4L * BLOCK, 1, "current");
      for (int i = 0; i < 3; i++) {
        read(service, current, 0, 4);
      }
      assertThat(service.status(current, 0, 4).allCached(0, 4)).as("newcomer read less often than the resident").isFalse();
      assertThat(service.status(old, 0, 3).allCached(0, 3)).isTrue();
      long rejected = service.counters().admissionRejections();
      assertThat(rejected).isPositive();

      // other reads, each of another object, until the counts of the old reads have been halved to nothing
      for (int i = 0; i < 5_000; i++) {
        service.status(new ObjectVersion("s3a://bucket/other/" + i, BLOCK, 1, "other"), 0, 1);
      }
      for (int i = 0; i < 3; i++) {
        read(service, current, 0, 4);
      }

      assertThat(service.status(current, 0, 4).allCached(0, 4)).as("newcomer after the old reads aged out").isTrue();
      assertThat(service.status(old, 0, 1).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(service.usage().evictions()).isEqualTo(1);
    }
  }

  @Test
  void aCacheWrittenUnderLruIsKeptWhenRestartedUnderTinyLfuAndMakesRoomForNewReads() throws Exception {
    List<ObjectVersion> old = new ArrayList<>();
    try (InProcessMetadataService lru = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(8 * UNIT))
        .leaseTimeout(LEASE).nanoClock(clock::get).journal(new FileMetadataJournal(BLOCK)).build())) {
      for (int i = 0; i < 4; i++) {
        old.add(new ObjectVersion("s3a://bucket/old/part-" + i, 3L * BLOCK, 1, "old-" + i));
        read(lru, old.get(i), 0, 3);
      }
    }
    try (InProcessMetadataService tinyLfu = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(8 * UNIT))
        .leaseTimeout(LEASE).nanoClock(clock::get).journal(new FileMetadataJournal(BLOCK)).evictionPolicy(EvictionPolicy.TINYLFU)
        .build())) {
      assertThat(tinyLfu.counters().recoveredBlocks()).isEqualTo(12);
      assertThat(tinyLfu.status(old.get(3), 0, 3).allCached(0, 3)).isTrue();

      ObjectVersion fresh = new ObjectVersion("s3a://bucket/new/part-0", 3L * BLOCK, 1, "new");
      read(tinyLfu, fresh, 0, 3);

      // nothing was counted for the recovered objects: the first new read wins over the least recently used of them
      assertThat(tinyLfu.status(fresh, 0, 3).allCached(0, 3)).isTrue();
      assertThat(tinyLfu.usage().evictions()).isEqualTo(1);
      assertThat(old.stream().filter(version -> tinyLfu.status(version, 0, 3).allCached(0, 3)).count()).isEqualTo(3);
      assertThat(tinyLfu.counters().admissionRejections()).isZero();
      assertWithinCap(tinyLfu, "the new read");
    }
  }

  /** Reads eight two-block objects four times each, then one object four times the cache's size once, checking the cap after every read. */
  private static List<ObjectVersion> readHotSetThenScan(InProcessMetadataService service) throws IOException {
    List<ObjectVersion> hot = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      hot.add(new ObjectVersion("s3a://bucket/dim/part-" + i, 2L * BLOCK, 1, "hot-" + i));
    }
    for (int round = 0; round < 4; round++) {
      for (ObjectVersion version : hot) {
        read(service, version, 0, 2);
      }
    }
    ObjectVersion scan = new ObjectVersion("s3a://bucket/fact/backfill", 256L * BLOCK, 1, "scan");
    for (int first = 0; first < 256; first += 4) {
      read(service, scan, first, first + 4);
      assertWithinCap(service, "scan read at block " + first);
    }
    return hot;
  }

  /** What a reader does ({@link TestBlocks#read}), checking after each grant with {@code assertWithinCap}. */
  private static void read(InProcessMetadataService service, ObjectVersion version, int first, int end) throws IOException {
    TestBlocks.read(service, version, first, end, BLOCK, afterWhat -> assertWithinCap(service, afterWhat));
  }

  private static void assertWithinCap(InProcessMetadataService service, String afterWhat) {
    for (CacheUsage.Disk disk : service.usage().disks()) {
      assertThat(disk.usedBytes() + disk.reservedBytes()).as("used + reserved after %s", afterWhat).isLessThanOrEqualTo(disk.capacityBytes());
    }
  }
}
