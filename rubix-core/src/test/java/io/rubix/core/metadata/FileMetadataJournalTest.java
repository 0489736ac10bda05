package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.core.metadata.journal.MetadataJournal;
import io.rubix.core.metadata.journal.RecoveryFiles;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.DataFileLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileMetadataJournalTest {
  private static final int BLOCK = 4096;
  @TempDir
  Path root;

  private InProcessMetadataService service() {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(1L << 30)).leaseTimeout(Duration.ofSeconds(30))
        .journal(new FileMetadataJournal(BLOCK)).build());
  }

  private static ObjectVersion version(String name) {
    return new ObjectVersion("s3a://bucket/" + name, 10 * BLOCK + 7, 1000, "etag-" + name);
  }

  /** Grants, writes and commits blocks [first, end) (see {@link TestBlocks}). */
  private static void cache(InProcessMetadataService service, ObjectVersion version, int first, int end) throws Exception {
    BlockRange lease = service.acquire(version, first, end);
    int[] blocks = new int[end - first];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = first + i;
    }
    assertThat(TestBlocks.commit(service, lease, BLOCK, blocks)).isEqualTo(blocks.length);
  }

  private static int crc(ObjectVersion version, int block) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    byte[] bytes = new byte[version.blockLength(block, BLOCK)];
    java.util.Arrays.fill(bytes, (byte) (block + 1));
    crc.update(bytes);
    return (int) crc.getValue();
  }

  @Test
  void restartRecoversPublishedBlocksAndChecksums() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 3);
      cache(service, a, 9, 11);
      BlockRange status = service.status(a, 1, 2);
      try (FileChannel channel = FileChannel.open(Path.of(status.dataFile()), StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(new byte[] {42}), BLOCK); // bit rot in block 1
      }
      service.reportCorrupt(a, 1);
    }
    try (InProcessMetadataService restarted = service()) {
      BlockRange status = restarted.status(a, 0, 11);
      assertThat(status.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(status.crc32c(0)).isEqualTo(crc(a, 0));
      assertThat(status.state(1)).isEqualTo(BlockState.MISSING);
      assertThat(status.state(2)).isEqualTo(BlockState.CACHED);
      assertThat(status.state(10)).isEqualTo(BlockState.CACHED);
      assertThat(status.crc32c(10)).isEqualTo(crc(a, 10));
      assertThat(restarted.counters().recoveredBlocks()).isEqualTo(4);
      // block 1 was dropped as corrupt but its bytes stay charged until the object is evicted
      assertThat(restarted.usage().usedBytes()).as("4 blocks, a 7-byte tail charged one unit, and the object")
          .isEqualTo(4L * BLOCK + DiskCharge.ALLOCATION_UNIT + DiskCharge.OBJECT_OVERHEAD);
      // a new object after restart never reuses a recovered file name
      cache(restarted, version("b"), 0, 1);
      assertThat(restarted.status(version("b"), 0, 1).dataFile()).isNotEqualTo(status.dataFile());
    }
  }

  @Test
  void blocksGrantedBeforeARestartStayCharged() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 1);
      // granted, maybe written by a grantee that outlives this service; never committed nor aborted
      assertThat(service.acquire(a, 1, 4).state(1)).isEqualTo(BlockState.GRANTED);
    }
    try (InProcessMetadataService restarted = service()) {
      BlockRange status = restarted.status(a, 0, 4);
      assertThat(status.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(status.state(1)).isEqualTo(BlockState.MISSING);
      assertThat(restarted.usage().usedBytes()).as("the published block, the three granted ones, and the object")
          .isEqualTo(4L * BLOCK + DiskCharge.OBJECT_OVERHEAD);
      // granted again: charged once (now reported as reserved)
      assertThat(restarted.acquire(a, 1, 4).state(1)).isEqualTo(BlockState.GRANTED);
      CacheUsage.Disk disk = restarted.usage().disks().get(0);
      assertThat(disk.usedBytes() + disk.reservedBytes()).isEqualTo(4L * BLOCK + DiskCharge.OBJECT_OVERHEAD);
    }
  }

  /**
   * Issue 9, the cap after a kill -9: a grantee of the crashed run may still be writing the blocks it
   * was granted, into a file the restarted run drops. Their charge is held for one lease timeout
   * after recovery, whatever the new run knows of leases.
   */
  @Test
  void blocksGrantedBeforeARestartStayChargedForALeaseTimeoutAfterTheirObjectIsDropped() throws Exception {
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    Duration lease = Duration.ofSeconds(30);
    long cap = 4L * BLOCK + DiskCharge.OBJECT_OVERHEAD;
    ObjectVersion a = version("a");
    ObjectVersion b = version("b");
    try (InProcessMetadataService crashed = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(cap))
        .leaseTimeout(lease).nanoClock(clock::get).journal(new FileMetadataJournal(BLOCK)).build())) {
      assertThat(crashed.acquire(a, 0, 3).state(2)).isEqualTo(BlockState.GRANTED);
    }
    try (InProcessMetadataService restarted = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(cap))
        .leaseTimeout(lease).nanoClock(clock::get).journal(new FileMetadataJournal(BLOCK)).build())) {
      restarted.invalidate(a);
      assertThat(restarted.acquire(b, 0, 4).state(1)).as("the 3 blocks the old grantee may write are held").isEqualTo(BlockState.DENIED);
      clock.addAndGet(lease.toNanos());
      BlockRange later = restarted.acquire(b, 1, 4);
      assertThat(later.state(1)).as("given back a lease timeout after recovery").isEqualTo(BlockState.GRANTED);
      assertThat(later.state(3)).isEqualTo(BlockState.GRANTED);
    }
  }

  @Test
  void tornLastRecordIsCutOffAndTheRestKept() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
    }
    Path meta = only(".meta");
    try (FileChannel channel = FileChannel.open(meta, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 0, 0}));
    }
    try (InProcessMetadataService restarted = service()) {
      assertThat(restarted.status(a, 0, 2).allCached(0, 2)).isTrue();
    }
  }

  @Test
  void invalidJournalDropsThatObjectAlone() throws Exception {
    ObjectVersion a = version("a");
    ObjectVersion b = version("b");
    Path metaOfA;
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
      metaOfA = FileMetadataJournal.metaFile(Path.of(service.status(a, 0, 1).dataFile()));
      cache(service, b, 0, 2);
    }
    byte[] bytes = Files.readAllBytes(metaOfA);
    bytes[10] ^= 0x5a;
    Files.write(metaOfA, bytes);
    try (InProcessMetadataService restarted = service()) {
      assertThat(restarted.status(a, 0, 2).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(restarted.status(b, 0, 2).allCached(0, 2)).isTrue();
    }
    assertThat(Files.exists(metaOfA)).isFalse();
  }

  @Test
  void publishedBlockBeyondTheDataFileIsNotRecovered() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 3);
    }
    try (FileChannel channel = FileChannel.open(only(".blocks"), StandardOpenOption.WRITE)) {
      channel.truncate(2L * BLOCK);
    }
    try (InProcessMetadataService restarted = service()) {
      BlockRange status = restarted.status(a, 0, 3);
      assertThat(status.state(1)).isEqualTo(BlockState.CACHED);
      assertThat(status.state(2)).isEqualTo(BlockState.MISSING);
    }
  }

  @Test
  void aRestartWithAnotherBlockSizeStartsColdAndDeletesTheOldFiles() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 3);
    }
    // the block size changed (as with the default going from 1m to 256k): no entry is read with the wrong layout
    int other = 2 * BLOCK;
    try (InProcessMetadataService restarted = new InProcessMetadataService(ServiceOptions.builder(other, List.of(root), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(30)).journal(new FileMetadataJournal(other)).build())) {
      assertThat(restarted.counters().recoveredBlocks()).isZero();
      assertThat(restarted.status(a, 0, a.blockCount(other)).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(restarted.usage().usedBytes()).isZero();
    }
    try (Stream<Path> files = Files.walk(root)) {
      assertThat(files.filter(Files::isRegularFile).toList()).as("the old journal and data file are deleted").isEmpty();
    }
  }

  @Test
  void evictionRemovesJournalBeforeData() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
      service.invalidate(a);
    }
    try (Stream<Path> files = Files.walk(root)) {
      assertThat(files.filter(Files::isRegularFile).toList()).isEmpty();
    }
  }

  /**
   * Issue 9 (found by ChaosTest): a daemon killed between dropping an object's journal and its data
   * file leaves an orphan, which reader JVMs may still hold open; recovery must truncate it before
   * unlinking it, or its blocks stay allocated outside the accounting, and writable, while they do.
   */
  @Test
  void orphanDataFileIsTruncatedBeforeItIsDeleted() throws Exception {
    Path orphan = root.resolve("cd").resolve("cd" + "0".repeat(62) + "-1.blocks");
    Files.createDirectories(orphan.getParent());
    Files.write(orphan, new byte[3 * BLOCK + 1]);
    try (FileChannel heldByAReader = FileChannel.open(orphan, StandardOpenOption.READ)) {
      try (InProcessMetadataService restarted = service()) {
        assertThat(restarted.counters().recoveryProblems()).isEqualTo(1);
        assertThat(restarted.usage().usedBytes()).isZero();
      }
      assertThat(Files.exists(orphan)).isFalse();
      assertThat(heldByAReader.size()).as("the orphan as a reader holding it sees it").isZero();
    }
  }

  @Test
  void undeletableOrphanIsChargedAndTheOtherEntriesRecovered() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
    }
    // a real fault even as root: an orphan "data file" that is a non-empty directory cannot be deleted
    Path orphan = root.resolve("ab").resolve("ab" + "0".repeat(62) + "-1.blocks");
    Files.createDirectories(orphan);
    Files.write(orphan.resolve("junk"), new byte[100]);
    long orphanBytes = Files.size(orphan);

    try (InProcessMetadataService restarted = service()) {
      assertThat(restarted.status(a, 0, 2).allCached(0, 2)).as("the good entry is recovered").isTrue();
      assertThat(restarted.usage().usedBytes()).as("the undeletable orphan counts against the cap")
          .isEqualTo(2L * BLOCK + DiskCharge.OBJECT_OVERHEAD + DiskCharge.ofFile(orphanBytes));
      assertThat(restarted.counters().recoveryProblems()).isEqualTo(1);
    }
  }

  /**
   * Tests run as root, where chmod 000 stops no read: the faults are injected through {@link RecoveryFiles}
   * (opening one prefix directory fails, iterating another fails half way), as a failing disk does.
   */
  @Test
  void unreadableDirectoriesDropTheirEntriesAloneAndNothingIsThrown() throws Exception {
    List<ObjectVersion> versions = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      versions.add(version("object-" + i));
    }
    try (InProcessMetadataService service = service()) {
      for (ObjectVersion v : versions) {
        cache(service, v, 0, 2);
      }
    }
    List<Path> prefixes;
    try (Stream<Path> dirs = Files.list(root)) {
      prefixes = dirs.filter(Files::isDirectory).sorted().toList();
    }
    assertThat(prefixes).hasSizeGreaterThanOrEqualTo(3);
    Path unopenable = prefixes.get(0);
    Path breaksWhileIterating = prefixes.get(1);
    RecoveryFiles faulty = new RecoveryFiles() {
      @Override
      public DirectoryStream<Path> list(Path dir) throws IOException {
        if (dir.equals(unopenable)) {
          throw new AccessDeniedException(dir.toString());
        }
        DirectoryStream<Path> real = RecoveryFiles.DEFAULT.list(dir);
        if (!dir.equals(breaksWhileIterating)) {
          return real;
        }
        return new DirectoryStream<>() {
          @Override
          public Iterator<Path> iterator() {
            return new Iterator<>() {
              @Override
              public boolean hasNext() {
                throw new DirectoryIteratorException(new IOException("Input/output error reading " + dir));
              }

              @Override
              public Path next() {
                throw new NoSuchElementException();
              }
            };
          }

          @Override
          public void close() throws IOException {
            real.close();
          }
        };
      }

      @Override
      public void delete(Path file) throws IOException {
        RecoveryFiles.DEFAULT.delete(file);
      }

      @Override
      public long size(Path file) throws IOException {
        return RecoveryFiles.DEFAULT.size(file);
      }
    };

    try (InProcessMetadataService restarted = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(30)).journal(new FileMetadataJournal(BLOCK, faulty)).build())) {
      int recovered = 0;
      for (ObjectVersion v : versions) {
        BlockRange status = restarted.status(v, 0, 2);
        Path prefix = root.resolve(DataFileLayout.sha256Hex(v.canonicalKey()).substring(0, 2));
        boolean readable = !prefix.equals(unopenable) && !prefix.equals(breaksWhileIterating);
        assertThat(status.allCached(0, 2)).as("%s in %s", v, prefix).isEqualTo(readable);
        recovered += readable ? 1 : 0;
      }
      assertThat(recovered).as("entries in readable directories").isPositive();
      assertThat(restarted.counters().recoveryProblems()).as("one per unreadable directory").isEqualTo(2);
    }
  }

  @Test
  void aJournalThatFailsAsAWholeLeavesTheServiceEmptyInsteadOfFailingItsConstruction() {
    MetadataJournal broken = new MetadataJournal.Discarding() {
      @Override
      public Recovery recover(List<Path> roots, int blockSize) {
        throw new UncheckedIOException(new IOException("disk gone"));
      }
    };
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(30)).journal(broken).build())) {
      assertThat(service.usage().disks().get(0).objects()).isZero();
      assertThat(service.counters().recoveryProblems()).isEqualTo(1);
    }
  }

  @Test
  void undeletableFilesBeyondTheCapEvictRecoveredObjectsSoUsageStaysWithinIt() throws Exception {
    long cap = 8L * BLOCK;
    ObjectVersion a = version("a");
    ObjectVersion b = version("b");
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(cap))
        .leaseTimeout(Duration.ofSeconds(30)).journal(new FileMetadataJournal(BLOCK)).build())) {
      cache(service, a, 0, 3);
      cache(service, b, 0, 3);
    }
    // an orphan 3 blocks long that cannot be deleted (charged 4 units with its inode): over the cap by one object
    Path orphan = root.resolve("cd").resolve("cd" + "0".repeat(62) + "-1.blocks");
    Files.createDirectories(orphan.getParent());
    Files.write(orphan, new byte[3 * BLOCK]);
    RecoveryFiles undeletable = new RecoveryFiles() {
      @Override
      public DirectoryStream<Path> list(Path dir) throws IOException {
        return RecoveryFiles.DEFAULT.list(dir);
      }

      @Override
      public void delete(Path file) throws IOException {
        if (file.equals(orphan)) {
          throw new AccessDeniedException(file.toString());
        }
        RecoveryFiles.DEFAULT.delete(file);
      }

      @Override
      public long size(Path file) throws IOException {
        return RecoveryFiles.DEFAULT.size(file);
      }
    };
    try (InProcessMetadataService restarted = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(cap))
        .leaseTimeout(Duration.ofSeconds(30)).journal(new FileMetadataJournal(BLOCK, undeletable)).build())) {
      CacheUsage.Disk disk = restarted.usage().disks().get(0);
      assertThat(disk.usedBytes() + disk.reservedBytes()).as("usage after restart: %s", disk).isLessThanOrEqualTo(cap);
      assertThat(disk.usedBytes()).as("the orphan is charged").isEqualTo(DiskCharge.ofFile(3L * BLOCK) + 3L * BLOCK + DiskCharge.OBJECT_OVERHEAD);
      assertThat(disk.objects()).as("one recovered object was evicted to make room for the orphan").isEqualTo(1);
      assertThat(orphan).exists();
    }
  }

  private Path only(String suffix) throws Exception {
    try (Stream<Path> files = Files.walk(root)) {
      List<Path> matches = files.filter(p -> p.toString().endsWith(suffix)).toList();
      assertThat(matches).hasSize(1);
      return matches.get(0);
    }
  }
}
