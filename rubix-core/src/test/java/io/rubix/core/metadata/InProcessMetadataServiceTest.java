package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.ChecksumVerification;
import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.store.BlockStore;
import io.rubix.core.store.CacheFiles;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InProcessMetadataServiceTest {
  private static final int BLOCK = 4096;
  /** What the service charges for an object beside its blocks. */
  private static final long OBJECT = DiskCharge.OBJECT_OVERHEAD;
  private static final Duration LEASE = Duration.ofSeconds(10);

  @TempDir
  Path root;

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @AfterEach
  void stopExecutor() throws Exception {
    executor.shutdownNow();
  }

  private InProcessMetadataService service(long capacity) {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(capacity)).leaseTimeout(LEASE)
        .nanoClock(clock::get).build());
  }

  private static ObjectVersion version(String name, long length) {
    return new ObjectVersion("s3a://bucket/" + name, length, 1, "etag-" + name);
  }

  private static void commitAll(InProcessMetadataService service, BlockRange range) throws IOException {
    List<Integer> granted = new ArrayList<>();
    for (int b = range.firstBlock(); b < range.endBlock(); b++) {
      if (range.state(b) == BlockState.GRANTED) {
        granted.add(b);
      }
    }
    int[] blocks = granted.stream().mapToInt(Integer::intValue).toArray();
    assertThat(TestBlocks.commit(service, range, BLOCK, blocks)).isEqualTo(blocks.length);
  }

  private static void assertWithinCap(InProcessMetadataService service, String afterWhat) {
    for (CacheUsage.Disk disk : service.usage().disks()) {
      assertThat(disk.usedBytes()).as("used bytes after %s", afterWhat).isNotNegative();
      assertThat(disk.reservedBytes()).as("reserved bytes after %s", afterWhat).isNotNegative();
      assertThat(disk.usedBytes() + disk.reservedBytes()).as("used + reserved after %s: %s", afterWhat, disk)
          .isLessThanOrEqualTo(disk.capacityBytes());
    }
  }

  @Test
  void capIsNeverExceededUnderRandomGrantCommitAbortAndExpiry() throws Exception {
    capHoldsUnderRandomOperations(EvictionPolicy.LRU);
  }

  @Test
  void capIsNeverExceededUnderTinyLfu() throws Exception {
    capHoldsUnderRandomOperations(EvictionPolicy.TINYLFU);
  }

  private void capHoldsUnderRandomOperations(EvictionPolicy policy) throws Exception {
    long seed = Long.getLong("rubix.fuzz.seed", System.nanoTime());
    Random random = new Random(seed);
    long capacity = 10L * BLOCK + 123;
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(capacity))
        .leaseTimeout(LEASE).nanoClock(clock::get).evictionPolicy(policy).build())) {
      List<ObjectVersion> versions = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        versions.add(version("object-" + i, 1 + random.nextInt(6 * BLOCK)));
      }
      List<BlockRange> open = new ArrayList<>();
      for (int step = 0; step < 5_000; step++) {
        String what = "step " + step + " (seed " + seed + ")";
        int op = random.nextInt(10);
        ObjectVersion version = versions.get(random.nextInt(versions.size()));
        int blocks = version.blockCount(BLOCK);
        int first = random.nextInt(blocks);
        int end = first + 1 + random.nextInt(blocks - first);
        if (op < 4) {
          BlockRange range = service.acquire(version, first, end);
          if (range.leaseId() != 0) {
            open.add(range);
          }
        } else if (op < 6 && !open.isEmpty()) {
          BlockRange range = open.remove(random.nextInt(open.size()));
          List<Integer> chosen = new ArrayList<>();
          for (int b = range.firstBlock(); b < range.endBlock(); b++) {
            if (range.state(b) == BlockState.GRANTED && random.nextBoolean()) {
              chosen.add(b);
            }
          }
          int[] picked = chosen.stream().mapToInt(Integer::intValue).toArray();
          TestBlocks.commit(service, range, BLOCK, picked);
        } else if (op < 8 && !open.isEmpty()) {
          BlockRange range = open.remove(random.nextInt(open.size()));
          int[] all = new int[range.endBlock() - range.firstBlock()];
          for (int i = 0; i < all.length; i++) {
            all[i] = range.firstBlock() + i;
          }
          service.abort(range.leaseId(), all, random.nextBoolean());
        } else if (op == 8) {
          clock.addAndGet(random.nextInt(4) * LEASE.toNanos() / 3);
          service.status(version, first, end);
        } else if (random.nextInt(4) == 0) {
          service.invalidate(version);
        } else {
          service.reportCorrupt(version, first);
        }
        assertWithinCap(service, what);
      }
      assertThat(service.usage().evictions()).as("seed %s", seed).isPositive();
    }
  }

  @Test
  void evictsLeastRecentlyUsedFirst() throws Exception {
    try (InProcessMetadataService service = service(3L * (BLOCK + OBJECT))) {
      ObjectVersion a = version("a", BLOCK);
      ObjectVersion b = version("b", BLOCK);
      ObjectVersion c = version("c", BLOCK);
      ObjectVersion d = version("d", BLOCK);
      List<Path> files = new ArrayList<>();
      for (ObjectVersion v : List.of(a, b, c)) {
        BlockRange range = service.acquire(v, 0, 1);
        files.add(Path.of(range.dataFile()));
        commitAll(service, range);
      }
      Path fileOfB = files.get(1);
      service.status(a, 0, 1);

      BlockRange range = service.acquire(d, 0, 1);

      assertThat(range.state(0)).isEqualTo(BlockState.GRANTED);
      assertThat(service.status(b, 0, 1).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(service.status(a, 0, 1).state(0)).isEqualTo(BlockState.CACHED);
      assertThat(service.status(c, 0, 1).state(0)).isEqualTo(BlockState.CACHED);
      assertThat(fileOfB).doesNotExist();
      assertThat(service.usage().evictions()).isEqualTo(1);
      assertWithinCap(service, "eviction");
    }
  }

  @Test
  void invalidatingAPathDropsItAndEverythingUnderItButNotItsSiblings() throws Exception {
    try (InProcessMetadataService service = service(20L * (BLOCK + OBJECT))) {
      List<String> names = List.of("t", "t/a", "t/y=1/b", "t/y=1/b2", "t2/c", "t.bak", "u/t/d", "s");
      Map<String, ObjectVersion> versions = new LinkedHashMap<>();
      for (String name : names) {
        ObjectVersion v = version(name, BLOCK);
        versions.put(name, v);
        commitAll(service, service.acquire(v, 0, 1));
      }
      // a second version of one path (another length): both go
      ObjectVersion longer = version("t/a", 2L * BLOCK);
      commitAll(service, service.acquire(longer, 0, 2));

      assertThat(service.invalidatePath("s3a://bucket/t/y=1")).isEqualTo(2);
      assertThat(service.invalidatePath("s3a://bucket/t")).as("t itself, both versions of t/a").isEqualTo(3);
      assertThat(service.invalidatePath("s3a://bucket/t")).as("nothing left under it").isZero();

      for (Map.Entry<String, ObjectVersion> entry : versions.entrySet()) {
        boolean dropped = entry.getKey().equals("t") || entry.getKey().startsWith("t/");
        assertThat(service.status(entry.getValue(), 0, 1).state(0)).as(entry.getKey())
            .isEqualTo(dropped ? BlockState.MISSING : BlockState.CACHED);
      }
      assertThat(service.status(longer, 0, 1).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(service.invalidatePath("s3a://bucket/")).as("the bucket's root: everything left").isEqualTo(4);
      assertWithinCap(service, "invalidation");
    }
  }

  /** A path's length is told only from its one version without time and ETag that has a block cached. */
  @Test
  void theImmutableLengthIsThatOfTheOneVersionWithoutTimeAndEtagHoldingABlock() throws Exception {
    try (InProcessMetadataService service = service(20L * (BLOCK + OBJECT))) {
      String path = "s3://lake/t/metadata/v1.metadata.json";
      assertThat(service.immutableLength(path)).as("nothing cached").isEqualTo(-1);
      ObjectVersion immutable = new ObjectVersion(path, 2L * BLOCK + 7, 0, "");
      BlockRange granted = service.acquire(immutable, 0, 1);
      assertThat(service.immutableLength(path)).as("granted, not committed").isEqualTo(-1);
      commitAll(service, granted);
      assertThat(service.immutableLength(path)).isEqualTo(2L * BLOCK + 7);
      commitAll(service, service.acquire(new ObjectVersion(path, 9L * BLOCK, 5, "etag"), 0, 1));
      assertThat(service.immutableLength(path)).as("a version with a time and an ETag is another kind").isEqualTo(2L * BLOCK + 7);
      assertThat(service.immutableLength(path + ".bak")).as("another path").isEqualTo(-1);
      assertThat(service.immutableLength("s3://lake/t/metadata")).as("a directory of it").isEqualTo(-1);

      ObjectVersion other = new ObjectVersion(path, 3L * BLOCK, 0, "");
      commitAll(service, service.acquire(other, 0, 1));
      assertThat(service.immutableLength(path)).as("two lengths: the cache cannot tell").isEqualTo(-1);
      service.invalidate(other);
      assertThat(service.immutableLength(path)).isEqualTo(2L * BLOCK + 7);
      service.invalidatePath("s3://lake/t");
      assertThat(service.immutableLength(path)).isEqualTo(-1);
    }
  }

  @Test
  void objectsBeingFetchedAreNotEvicted() throws Exception {
    try (InProcessMetadataService service = service(2L * (BLOCK + OBJECT))) {
      ObjectVersion pinned = version("pinned", BLOCK);
      ObjectVersion cached = version("cached", BLOCK);
      ObjectVersion newcomer = version("newcomer", BLOCK);
      ObjectVersion another = version("another", BLOCK);
      BlockRange inFlight = service.acquire(pinned, 0, 1);
      commitAll(service, service.acquire(cached, 0, 1));
      service.status(cached, 0, 1);

      assertThat(service.acquire(newcomer, 0, 1).state(0)).isEqualTo(BlockState.GRANTED);
      assertThat(service.status(cached, 0, 1).state(0)).as("the unpinned object is the victim").isEqualTo(BlockState.MISSING);
      assertThat(service.status(pinned, 0, 1).state(0)).isEqualTo(BlockState.IN_FLIGHT);

      assertThat(service.acquire(another, 0, 1).state(0)).as("only pinned objects are left").isEqualTo(BlockState.DENIED);
      assertWithinCap(service, "denial");
      int[] crc = TestBlocks.write(inFlight, BLOCK, 0);
      assertThat(service.commit(inFlight.leaseId(), new int[] {0}, crc)).isEqualTo(1);
      assertThat(service.status(pinned, 0, 1).crc32c(0)).isEqualTo(crc[0]);
    }
  }

  @Test
  void expiredLeasesAreReleasedAndTheirLateCommitsIgnored() throws Exception {
    try (InProcessMetadataService service = service(8L * BLOCK)) {
      ObjectVersion v = version("v", 3L * BLOCK);
      BlockRange first = service.acquire(v, 0, 3);
      assertThat(service.acquire(v, 0, 3).state(1)).isEqualTo(BlockState.IN_FLIGHT);

      clock.addAndGet(LEASE.toNanos());

      assertThat(service.status(v, 0, 3).state(1)).isEqualTo(BlockState.MISSING);
      BlockRange second = service.acquire(v, 0, 3);
      assertThat(second.state(1)).isEqualTo(BlockState.GRANTED);
      assertThat(second.leaseId()).isNotEqualTo(first.leaseId());
      assertThat(TestBlocks.commit(service, first, BLOCK, 0, 1, 2)).isZero();
      assertThat(service.usage().usedBytes() + service.usage().disks().get(0).reservedBytes())
          .as("re-granting a charged block reserves nothing twice").isEqualTo(3L * BLOCK + OBJECT);
      commitAll(service, second);
      assertThat(service.status(v, 0, 3).allCached(0, 3)).isTrue();
      assertWithinCap(service, "expiry");
    }
  }

  /**
   * Issue 9, the cap: a grantee that checked its file live just before the drop lands its write in the
   * dropped file (and truncates it again once it sees). Until it is done, that is a commit or an abort
   * of the block, or its lease expired, the block's charge is held: no grant is made in that space.
   */
  @Test
  void blocksOfADroppedObjectStayChargedUntilTheirGranteeIsDone() throws Exception {
    try (InProcessMetadataService service = service(4L * BLOCK + OBJECT)) {
      ObjectVersion dropped = version("dropped", 3L * BLOCK);
      ObjectVersion next = version("next", 4L * BLOCK);
      BlockRange committing = service.acquire(dropped, 0, 2);
      BlockRange aborting = service.acquire(dropped, 2, 3);
      service.invalidate(dropped);
      BlockRange held = service.acquire(next, 0, 4);
      assertThat(grantedCount(held)).as("blocks granted while the dropped object's grantees may still write 3 blocks").isEqualTo(1);

      assertThat(TestBlocks.commit(service, committing, BLOCK, 0, 1)).as("a commit to a dropped object publishes nothing").isZero();
      assertThat(grantedCount(service.acquire(next, 1, 4))).as("granted once the committer is done with its 2 blocks").isEqualTo(2);
      service.abort(aborting.leaseId(), new int[] {2}, true);
      assertThat(grantedCount(service.acquire(next, 3, 4))).as("granted once the last grantee aborted").isEqualTo(1);
      assertWithinCap(service, "the grantees of a dropped object finished");
    }
  }

  @Test
  void blocksOfADroppedObjectAreGivenBackWhenTheirLeaseExpires() throws Exception {
    try (InProcessMetadataService service = service(4L * BLOCK + OBJECT)) {
      ObjectVersion dropped = version("dropped", 3L * BLOCK);
      ObjectVersion next = version("next", 4L * BLOCK);
      service.acquire(dropped, 0, 3);
      service.clear();
      assertThat(grantedCount(service.acquire(next, 0, 4))).isEqualTo(1);
      clock.addAndGet(LEASE.toNanos());
      assertThat(grantedCount(service.acquire(next, 1, 4))).as("granted once the silent grantee's lease expired").isEqualTo(3);
      assertWithinCap(service, "expiry of a dropped object's lease");
    }
  }

  private static int grantedCount(BlockRange range) {
    int granted = 0;
    for (int b = range.firstBlock(); b < range.endBlock(); b++) {
      if (range.state(b) == BlockState.GRANTED) {
        granted++;
      }
    }
    return granted;
  }

  @Test
  void theServiceCreatesDataFilesSoAWriterWhoseLeaseExpiredCannotRecreateAnEvictedOne() throws Exception {
    try (InProcessMetadataService service = service(8L * BLOCK)) {
      ObjectVersion v = version("v", 2L * BLOCK);
      BlockRange lease = service.acquire(v, 0, 2);
      Path dataFile = Path.of(lease.dataFile());
      assertThat(dataFile).as("created with the first lease, before any write").exists();
      assertThat(Files.getPosixFilePermissions(dataFile)).extracting(Object::toString)
          .containsExactlyInAnyOrder("OWNER_READ", "OWNER_WRITE", "GROUP_READ", "GROUP_WRITE");

      // the writer (another JVM in BookKeeper mode: a store that never saw the eviction) stalls past its lease
      clock.addAndGet(LEASE.toNanos());
      service.invalidate(v);
      assertThat(dataFile).doesNotExist();
      try (CacheFiles files = new CacheFiles(4, ChannelOpener.DEFAULT)) {
        BlockStore store = new BlockStore(BLOCK, files, ChecksumVerification.FIRST_READ, 1);
        assertThatThrownBy(() -> store.write(dataFile, v, 0, ByteBuffer.allocate(BLOCK)))
            .isInstanceOf(NoSuchFileException.class);
      }
      assertThat(dataFile).as("a late writer leaves no orphan file outside the accounting").doesNotExist();
      assertThat(service.usage().usedBytes()).isZero();
    }
  }

  @Test
  void invalidateDropsBlocksSpaceAndFile() throws Exception {
    try (InProcessMetadataService service = service(8L * BLOCK)) {
      ObjectVersion v = version("v", 2L * BLOCK + 1);
      BlockRange range = service.acquire(v, 0, 3);
      Path file = Path.of(range.dataFile());
      commitAll(service, range);
      assertThat(service.usage().usedBytes()).as("the one-byte tail is charged a whole allocation unit").isEqualTo(3L * BLOCK + OBJECT);
      List<Path> evicted = new ArrayList<>();
      service.addEvictionListener(evicted::add);

      service.invalidate(v);

      assertThat(service.status(v, 0, 3).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(service.usage().usedBytes()).isZero();
      assertThat(file).doesNotExist();
      assertThat(evicted).containsExactly(file);
      assertThat(service.acquire(v, 0, 1).dataFile()).as("a re-cached version gets a fresh file").isNotEqualTo(file.toString());
    }
  }

  @Test
  void objectWhoseFetchesAllFailedIsForgotten() throws Exception {
    try (InProcessMetadataService service = service(8L * BLOCK)) {
      for (int i = 0; i < 100; i++) {
        ObjectVersion v = version("unreadable-" + i, 3L * BLOCK);
        BlockRange range = service.acquire(v, 0, 3);
        service.abort(range.leaseId(), new int[] {0, 1, 2}, false);
      }
      assertThat(service.usage().disks().get(0).objects()).as("metadata of objects with nothing cached").isZero();
      assertThat(service.usage().usedBytes()).isZero();
      ObjectVersion v = version("unreadable-0", 3L * BLOCK);
      assertThat(service.acquire(v, 0, 3).state(0)).isEqualTo(BlockState.GRANTED);
    }
  }

  @Test
  void awaitInFlightWakesOnCommitAndOnAbort() throws Exception {
    try (InProcessMetadataService service = service(8L * BLOCK)) {
      ObjectVersion v = version("v", 2L * BLOCK);
      BlockRange lease = service.acquire(v, 0, 2);

      CompletableFuture<BlockRange> committed = awaitInFlight(service, v, 0, 1);
      awaitBlocked();
      assertThat(committed).isNotDone();
      TestBlocks.commit(service, lease, BLOCK, 0);
      assertThat(committed.get(5, TimeUnit.SECONDS).state(0)).isEqualTo(BlockState.CACHED);

      CompletableFuture<BlockRange> aborted = awaitInFlight(service, v, 1, 2);
      awaitBlocked();
      assertThat(aborted).isNotDone();
      service.abort(lease.leaseId(), new int[] {1}, false);
      assertThat(aborted.get(5, TimeUnit.SECONDS).state(1)).isEqualTo(BlockState.MISSING);
      assertThat(service.usage().usedBytes()).isEqualTo(BLOCK + OBJECT);
    }
  }

  private final AtomicReference<Thread> lastWaiter = new AtomicReference<>();

  private CompletableFuture<BlockRange> awaitInFlight(InProcessMetadataService service, ObjectVersion v, int first, int end) {
    lastWaiter.set(null);
    return CompletableFuture.supplyAsync(() -> {
      lastWaiter.set(Thread.currentThread());
      try {
        return service.awaitInFlight(v, first, end, TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, executor);
  }

  /** Spins (no sleep) until the waiting thread is parked in its timed wait. */
  @Test
  void aCallNamingMoreThanTheBoundIsRejectedWithTheBound() throws Exception {
    int bound = CacheMetadataService.MAX_BLOCKS_PER_CALL;
    try (InProcessMetadataService service = service(8L * BLOCK)) {
      ObjectVersion huge = version("huge", (long) Integer.MAX_VALUE * BLOCK);
      assertThatThrownBy(() -> service.acquire(huge, 0, bound + 1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(bound));
      assertThatThrownBy(() -> service.status(huge, 10, 10 + bound + 1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(bound));
      assertThatThrownBy(() -> service.awaitInFlight(huge, 0, Integer.MAX_VALUE, 1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Integer.toString(bound));
      assertThat(service.status(huge, 0, bound).endBlock()).isEqualTo(bound);
      assertThat(service.usage().disks().get(0).objects()).as("a rejected call creates nothing").isZero();
    }
  }

  @Test
  void trackedObjectVersionsAreBoundedByEvictingTheLeastRecentlyUsed() throws Exception {
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(1L << 30))
        .leaseTimeout(LEASE).nanoClock(clock::get).maxObjects(3).build())) {
      List<ObjectVersion> versions = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        versions.add(version("v" + i, BLOCK));
        commitAll(service, service.acquire(versions.get(i), 0, 1));
      }
      service.status(versions.get(0), 0, 1);

      // every invented version would otherwise add metadata and a file
      ObjectVersion fourth = version("v3", BLOCK);
      commitAll(service, service.acquire(fourth, 0, 1));

      assertThat(service.usage().disks().get(0).objects()).isEqualTo(3);
      assertThat(service.status(versions.get(1), 0, 1).state(0)).as("the least recently used").isEqualTo(BlockState.MISSING);
      assertThat(service.status(versions.get(0), 0, 1).state(0)).isEqualTo(BlockState.CACHED);
      assertThat(service.status(fourth, 0, 1).state(0)).isEqualTo(BlockState.CACHED);
      try (var files = Files.walk(root)) {
        assertThat(files.filter(p -> p.toString().endsWith(".blocks")).count()).isEqualTo(3);
      }

      // all tracked objects being fetched into: a new one is denied, not tracked
      List<ObjectVersion> pinned = List.of(version("p0", 2L * BLOCK), version("p1", 2L * BLOCK), version("p2", 2L * BLOCK));
      for (ObjectVersion v : pinned) {
        assertThat(service.acquire(v, 0, 1).state(0)).isEqualTo(BlockState.GRANTED);
      }
      assertThat(service.acquire(version("late", BLOCK), 0, 1).state(0)).isEqualTo(BlockState.DENIED);
      assertThat(service.usage().disks().get(0).objects()).isEqualTo(3);
    }
  }

  @Test
  void tinyObjectsAreChargedWhatTheFileSystemAllocates() throws Exception {
    int count = 10_000;
    try (InProcessMetadataService service = service(1L << 40)) {
      for (int i = 0; i < count; i++) {
        commitAll(service, service.acquire(version("tiny-" + i, 1), 0, 1));
      }
      // a 4 KiB allocation unit for the byte and one for the object's inode and journal
      assertThat(service.usage().usedBytes()).isEqualTo(count * 2L * 4096);
    }
    long cap = 1L << 20;
    try (InProcessMetadataService service = service(cap)) {
      for (int i = 0; i < count; i++) {
        commitAll(service, service.acquire(version("tiny-" + i, 1), 0, 1));
        assertWithinCap(service, "tiny object " + i);
      }
      assertThat(service.usage().disks().get(0).objects()).isEqualTo((int) (cap / (2 * 4096)));
    }
  }

  private void awaitBlocked() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      Thread waiter = lastWaiter.get();
      if (waiter != null && waiter.getState() == Thread.State.TIMED_WAITING) {
        return;
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("awaitInFlight never blocked");
  }
}
