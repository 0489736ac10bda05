package io.rubix.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.ChecksumVerification;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9, scenarios 1, 3 and 4 at the level of the block store and the metadata service, with two
 * stores that share one service the way two JVMs share a BookKeeper daemon: neither store hears of
 * evictions, and each holds data files open across them. The interleavings are forced by the order of
 * the calls, not by timing.
 */
class DroppedFileTest {
  private static final int BLOCK = 4096;

  @TempDir
  Path root;

  private final byte[] data = bytes(6 * BLOCK, 1);
  private final ObjectVersion version = new ObjectVersion("s3a://bucket/key", data.length, 1000, "etag");

  private InProcessMetadataService service() {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(64L * BLOCK))
        .leaseTimeout(Duration.ofSeconds(30)).build());
  }

  private static BlockStore store(CacheFiles files) {
    return new BlockStore(BLOCK, files, ChecksumVerification.FIRST_READ, 2);
  }

  /** Scenario 1: a stale handle to a cleared file, a late writer into it, and a reader trusting a block it verified once. */
  @Test
  void aLateWriteIntoAClearedFileNeverMakesItsHolesReadAsData() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles filesA = new CacheFiles(8, ChannelOpener.DEFAULT);
        CacheFiles filesB = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockStore a = store(filesA);
      BlockStore b = store(filesB);
      BlockRange lease = service.acquire(version, 0, 1);
      Path dataFile = Path.of(lease.dataFile());
      int crc = a.write(dataFile, version, 0, ByteBuffer.wrap(data, 0, BLOCK));
      assertThat(service.commit(lease.leaseId(), new int[] {0}, new int[] {crc})).isEqualTo(1);
      BlockRange status = service.status(version, 0, 1);
      // stream A reads block 0 twice: verified once, then trusted
      assertThat(readBlock0(a, dataFile, status)).isEqualTo(block(0));
      assertThat(readBlock0(a, dataFile, status)).isEqualTo(block(0));
      // stream B of the same JVM leases block 5 and holds the file open (the shared open-file cache)
      BlockRange leaseB = service.acquire(version, 5, 6);
      assertThat(leaseB.state(5)).isEqualTo(BlockState.GRANTED);
      // the daemon clears the cache: block 0 unpublished, file truncated and unlinked
      assertThat(service.clear()).isEqualTo(1);
      // B's slow source read returns: it writes block 5 into the unlinked file through A's handle
      assertThatThrownBy(() -> a.write(dataFile, version, 5, ByteBuffer.wrap(data, 5 * BLOCK, BLOCK)))
          .isInstanceOf(CacheFileGoneException.class);
      // A reads block 0 again: never the hole as data, but a file that is gone (the write closed the shared handle)
      assertThatThrownBy(() -> readBlock0(a, dataFile, status)).isInstanceOf(java.nio.file.NoSuchFileException.class);
      // and a store of another JVM that did not hold it open tells the same
      assertThatThrownBy(() -> readBlock0(b, dataFile, status)).isInstanceOf(java.nio.file.NoSuchFileException.class);
    }
  }

  /** Scenario 1, another JVM's writer: its late write into the dropped file leaves the reader's trusted handle reading a gone file, not zeros. */
  @Test
  void aLateWriterInAnotherJvmNeverMakesHolesReadAsData() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles filesA = new CacheFiles(8, ChannelOpener.DEFAULT);
        CacheFiles filesB = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockStore a = store(filesA);
      BlockStore b = store(filesB);
      BlockRange lease = service.acquire(version, 0, 1);
      Path dataFile = Path.of(lease.dataFile());
      int crc = a.write(dataFile, version, 0, ByteBuffer.wrap(data, 0, BLOCK));
      service.commit(lease.leaseId(), new int[] {0}, new int[] {crc});
      BlockRange status = service.status(version, 0, 1);
      assertThat(readBlock0(a, dataFile, status)).isEqualTo(block(0));
      assertThat(readBlock0(a, dataFile, status)).isEqualTo(block(0));
      BlockRange leaseB = service.acquire(version, 5, 6);
      assertThat(readBlock0(b, dataFile, status)).as("B holds the file open").isEqualTo(block(0));
      service.clear();
      assertThatThrownBy(() -> b.write(dataFile, version, 5, ByteBuffer.wrap(data, 5 * BLOCK, BLOCK))).isInstanceOf(CacheFileGoneException.class);
      assertThat(service.commit(leaseB.leaseId(), new int[] {5}, new int[] {BlockStore.crc32c(ByteBuffer.wrap(data, 5 * BLOCK, BLOCK))}))
          .as("the cleared lease publishes nothing").isZero();
      assertThatThrownBy(() -> readBlock0(a, dataFile, status)).isInstanceOf(CacheFileGoneException.class);
    }
  }

  /**
   * The cap, not only the bytes: a write that lands in a file dropped after the writer checked it gives
   * the unlinked inode blocks no accounting charges, and they stay allocated as long as any JVM holds
   * the file open, which a reader that last used it long ago still does. The writer takes them back.
   * The drop is forced between the writer's check and its write by a channel that runs it there.
   */
  @Test
  void aWriteThatRacesTheDropLeavesNothingAllocatedInTheDroppedFile() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles filesA = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      AtomicReference<Runnable> beforeWrite = new AtomicReference<>();
      ChannelOpener racing = hooked(beforeWrite, new AtomicReference<>());
      try (CacheFiles filesB = new CacheFiles(8, racing)) {
        BlockStore a = store(filesA);
        BlockStore b = store(filesB);
        Path dataFile = publish(service, a, 0);
        BlockRange status = service.status(version, 0, 1);
        assertThat(readBlock0(a, dataFile, status)).as("A holds the file open, then leaves it idle").isEqualTo(block(0));
        BlockRange leaseB = service.acquire(version, 5, 6);
        assertThat(leaseB.state(5)).isEqualTo(BlockState.GRANTED);
        beforeWrite.set(() -> assertThat(service.clear()).isEqualTo(1));
        assertThatThrownBy(() -> b.write(dataFile, version, 5, ByteBuffer.wrap(data, 5 * BLOCK, BLOCK))).isInstanceOf(CacheFileGoneException.class);
        assertThat(beforeWrite.get()).as("the drop ran between the check and the write").isNull();
        assertThat(filesA.get(dataFile).channel().size()).as("length of the dropped file A still holds (was it written, its block stays allocated)")
            .isZero();
      }
    }
  }

  /**
   * The same race with two writers of one JVM, which share the open file: writer 2's block lands in
   * the dropped file, then writer 1 finds the file gone and closes the shared handle before writer 2
   * re-checked it. Writer 2 must still take its block back: a handle is never closed while a write
   * through it has not been re-checked.
   */
  @Test
  void aWriterOfTheSameJvmNeverClosesTheFileUnderAnotherWritersUncheckedWrite() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles filesA = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      AtomicReference<Runnable> beforeWrite = new AtomicReference<>();
      AtomicReference<Runnable> afterWrite = new AtomicReference<>();
      ChannelOpener racing = hooked(beforeWrite, afterWrite);
      ExecutorService writers = Executors.newFixedThreadPool(2);
      try (CacheFiles filesB = new CacheFiles(8, racing)) {
        BlockStore a = store(filesA);
        BlockStore b = store(filesB);
        Path dataFile = publish(service, a, 0);
        BlockRange status = service.status(version, 0, 1);
        assertThat(readBlock0(a, dataFile, status)).as("A holds the file open, then leaves it idle").isEqualTo(block(0));
        service.acquire(version, 4, 6);
        CountDownLatch written = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        beforeWrite.set(() -> assertThat(service.clear()).isEqualTo(1));
        afterWrite.set(() -> {
          written.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        Future<?> writer2 = writers.submit(() -> b.write(dataFile, version, 5, ByteBuffer.wrap(data, 5 * BLOCK, BLOCK)));
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Thread> writer1Thread = new AtomicReference<>();
        Future<?> writer1 = writers.submit(() -> {
          writer1Thread.set(Thread.currentThread());
          return b.write(dataFile, version, 4, ByteBuffer.wrap(data, 4 * BLOCK, BLOCK));
        });
        awaitDoneOrParked(writer1, writer1Thread);
        release.countDown();
        assertThatThrownBy(writer1::get).hasCauseInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(writer2::get).hasCauseInstanceOf(NoSuchFileException.class);
        assertThat(filesA.get(dataFile).channel().size()).as("length of the dropped file A still holds (was it written, its block stays allocated)")
            .isZero();
      } finally {
        writers.shutdownNow();
      }
    }
  }

  /** Opens channels whose next positioned write runs, once each, the hook set in {@code before} before it and the one in {@code after} after it. */
  private static ChannelOpener hooked(AtomicReference<Runnable> before, AtomicReference<Runnable> after) {
    return file -> new ForwardingFileChannel(ChannelOpener.DEFAULT.open(file)) {
      @Override
      public int write(ByteBuffer src, long position) throws IOException {
        runOnce(before);
        int written = super.write(src, position);
        runOnce(after);
        return written;
      }
    };
  }

  private static void runOnce(AtomicReference<Runnable> hook) {
    Runnable run = hook.getAndSet(null);
    if (run != null) {
      run.run();
    }
  }

  /** Waits until {@code future} is done, or the thread running it waits on a lock. */
  private static void awaitDoneOrParked(Future<?> future, AtomicReference<Thread> thread) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!future.isDone() && System.nanoTime() < deadline) {
      Thread running = thread.get();
      if (running != null && running.getState() == Thread.State.WAITING) {
        return;
      }
      Thread.onSpinWait();
    }
  }


  /**
   * Scenario 4 at the service: a commit of blocks never written is refused when it claims the CRC32C of
   * bytes that are not zeros. Holes read as zeros, so a claim of the CRC32C of zeros matches them: it is
   * published, and its readers get zeros: the claim is the CRC32C of what its writer fetched, so the
   * source holds zeros there (a writer that lied could as well have written the zeros into the file).
   */
  @Test
  void aCommitOfBlocksNeverWrittenIsRefusedUnlessItClaimsZeros() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles files = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockRange lease = service.acquire(version, 0, 4);
      int realCrc2 = BlockStore.crc32c(ByteBuffer.wrap(block(2)));
      int realCrc3 = BlockStore.crc32c(ByteBuffer.wrap(block(3)));
      assertThat(service.commit(lease.leaseId(), new int[] {2, 3}, new int[] {realCrc2, realCrc3})).isZero();
      assertThat(service.counters().refusedBlocks()).isEqualTo(2);
      int zeroCrc = BlockStore.crc32c(ByteBuffer.allocate(BLOCK));
      assertThat(service.commit(lease.leaseId(), new int[] {0, 1}, new int[] {zeroCrc, zeroCrc})).isEqualTo(2);
      BlockRange after = service.status(version, 0, 4);
      assertThat(after.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(after.state(1)).isEqualTo(BlockState.CACHED);
      assertThat(after.state(2)).isEqualTo(BlockState.MISSING);
      assertThat(after.state(3)).isEqualTo(BlockState.MISSING);
      assertThat(readBlock0(store(files), Path.of(lease.dataFile()), after)).isEqualTo(new byte[BLOCK]);
      assertThat(service.counters().refusedBlocks()).isEqualTo(2);
    }
  }

  /** A block of zeros really written is published like any other, a short last block too, and read back. */
  @Test
  void aBlockOfZerosIsPublished() throws Exception {
    ObjectVersion sparse = new ObjectVersion("s3a://bucket/sparse", 2L * BLOCK + 100, 1000, "etag");
    try (InProcessMetadataService service = service(); CacheFiles files = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockStore store = store(files);
      BlockRange lease = service.acquire(sparse, 0, 3);
      Path dataFile = Path.of(lease.dataFile());
      int crc0 = store.write(dataFile, sparse, 0, ByteBuffer.allocate(BLOCK));
      int crc2 = store.write(dataFile, sparse, 2, ByteBuffer.allocate(100));
      assertThat(service.commit(lease.leaseId(), new int[] {0, 2}, new int[] {crc0, crc2})).isEqualTo(2);
      BlockRange after = service.status(sparse, 0, 3);
      assertThat(after.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(after.state(2)).isEqualTo(BlockState.CACHED);
      ByteBuffer tail = ByteBuffer.allocate(100);
      store.read(dataFile, sparse, 2, after.crc32c(2), 2L * BLOCK, tail);
      assertThat(tail.array()).isEqualTo(new byte[100]);
      assertThat(service.counters().refusedBlocks()).isZero();
    }
  }

  /** A claim of the CRC32C of zeros for a block whose bytes on disk are not zeros is refused. */
  @Test
  void aClaimOfZerosOverOtherBytesIsRefused() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles files = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockRange lease = service.acquire(version, 0, 1);
      store(files).write(Path.of(lease.dataFile()), version, 0, ByteBuffer.wrap(data, 0, BLOCK));
      int zeroCrc = BlockStore.crc32c(ByteBuffer.allocate(BLOCK));
      assertThat(service.commit(lease.leaseId(), new int[] {0}, new int[] {zeroCrc})).isZero();
      assertThat(service.status(version, 0, 1).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(service.counters().refusedBlocks()).isEqualTo(1);
    }
  }

  /** A commit whose claimed CRC32C differs from the written bytes is refused; one that matches is published. */
  @Test
  void aCommitIsPublishedOnlyWhenTheBytesOnDiskMatch() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles files = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockStore store = store(files);
      BlockRange lease = service.acquire(version, 0, 2);
      Path dataFile = Path.of(lease.dataFile());
      int crc0 = store.write(dataFile, version, 0, ByteBuffer.wrap(data, 0, BLOCK));
      int crc1 = store.write(dataFile, version, 1, ByteBuffer.wrap(data, BLOCK, BLOCK));
      assertThat(service.commit(lease.leaseId(), new int[] {0, 1}, new int[] {crc0, crc1 ^ 1})).isEqualTo(1);
      BlockRange after = service.status(version, 0, 2);
      assertThat(after.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(after.state(1)).isNotEqualTo(BlockState.CACHED);
      assertThat(service.counters().refusedBlocks()).isEqualTo(1);
    }
  }

  /** Scenario 3: a reader that read a dropped generation reports it corrupt; the recreated generation's good block stays published. */
  @Test
  void aReportFromADroppedGenerationNeverDropsTheNewOne() throws Exception {
    try (InProcessMetadataService service = service(); CacheFiles files = new CacheFiles(8, ChannelOpener.DEFAULT)) {
      BlockStore store = store(files);
      publish(service, store, 0);
      service.invalidate(version);
      Path second = publish(service, store, 0);
      service.reportCorrupt(version, 0);
      assertThat(service.status(version, 0, 1).state(0)).as("good bytes of %s stay published", second).isEqualTo(BlockState.CACHED);
    }
  }

  private Path publish(InProcessMetadataService service, BlockStore store, int blk) throws Exception {
    BlockRange lease = service.acquire(version, blk, blk + 1);
    Path dataFile = Path.of(lease.dataFile());
    int crc = store.write(dataFile, version, blk, ByteBuffer.wrap(data, blk * BLOCK, BLOCK));
    assertThat(service.commit(lease.leaseId(), new int[] {blk}, new int[] {crc})).isEqualTo(1);
    return dataFile;
  }

  private byte[] readBlock0(BlockStore store, Path dataFile, BlockRange status) throws Exception {
    ByteBuffer dst = ByteBuffer.allocate(BLOCK);
    store.read(dataFile, version, 0, status.crc32c(0), 0, dst);
    return dst.array();
  }

  private byte[] block(int blk) {
    return java.util.Arrays.copyOfRange(data, blk * BLOCK, (blk + 1) * BLOCK);
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
