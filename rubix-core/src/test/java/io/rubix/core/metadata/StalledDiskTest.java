package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.metadata.journal.MetadataJournal;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9, scenario 9: a stalled disk (here: the journal of one object, stuck in a write) delays the
 * callers that need that object and nobody else; the metadata lock is never held across file I/O.
 */
class StalledDiskTest {
  private static final int BLOCK = 4096;

  @TempDir
  Path root;

  /** A journal whose writes for one data file block until released. */
  private static final class StallingJournal extends MetadataJournal.Discarding {
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile String stallOn = "";

    private void maybeStall(Path dataFile) {
      if (!stallOn.isEmpty() && dataFile.toString().equals(stallOn)) {
        stalled.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void created(ObjectVersion version, Path dataFile) {
      maybeStall(dataFile);
    }

    @Override
    public void published(Path dataFile, int[] blocks, int[] crc32c) {
      maybeStall(dataFile);
    }
  }

  @Test
  void aStalledJournalWriteDelaysOnlyItsOwnObject() throws Exception {
    StallingJournal journal = new StallingJournal();
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(64L * BLOCK))
        .leaseTimeout(Duration.ofSeconds(30)).journal(journal).build())) {
      try {
        stallOneAndUseAnother(service, journal);
      } finally {
        journal.release.countDown(); // never leave the stalled write holding anything the service's close needs
      }
    }
  }

  private static void stallOneAndUseAnother(InProcessMetadataService service, StallingJournal journal) throws Exception {
    ObjectVersion stuck = new ObjectVersion("s3a://bucket/stuck", 2L * BLOCK, 1, "e");
    ObjectVersion other = new ObjectVersion("s3a://bucket/other", 2L * BLOCK, 1, "e");
    BlockRange lease = service.acquire(stuck, 0, 1);
    int[] crc = TestBlocks.write(lease, BLOCK, 0);
    journal.stallOn = lease.dataFile();
    CompletableFuture<Integer> commit = CompletableFuture.supplyAsync(() -> {
      try {
        return service.commit(lease.leaseId(), new int[] {0}, crc);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(journal.stalled.await(10, TimeUnit.SECONDS)).as("the commit reached the journal").isTrue();

    // everything about another object goes on while that write hangs
    CompletableFuture<Void> others = CompletableFuture.runAsync(() -> {
      try {
        BlockRange otherLease = service.acquire(other, 0, 2);
        assertThat(TestBlocks.commit(service, otherLease, BLOCK, 0, 1)).isEqualTo(2);
        assertThat(service.status(other, 0, 2).allCached(0, 2)).isTrue();
        assertThat(service.status(stuck, 0, 1).state(0)).isEqualTo(BlockState.IN_FLIGHT);
        service.usage();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    others.get(10, TimeUnit.SECONDS);
    assertThat(commit).isNotDone();

    journal.release.countDown();
    assertThat(commit.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(service.status(stuck, 0, 1).state(0)).isEqualTo(BlockState.CACHED);
  }

  /** An object invalidated while its files are being created: the creator's acquire does not fail, and no file is left behind. */
  @Test
  void anObjectDroppedWhileItsFilesAreCreatedLeavesNoFileAndNoFailure() throws Exception {
    StallingJournal journal = new StallingJournal();
    ObjectVersion version = new ObjectVersion("s3a://bucket/raced", 2L * BLOCK, 1, "e");
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(64L * BLOCK))
        .leaseTimeout(Duration.ofSeconds(30)).journal(journal).build())) {
      Path dataFile = new io.rubix.spi.metadata.DataFileLayout(List.of(root)).dataFile(version, 0, 1);
      journal.stallOn = dataFile.toString();
      try {
        CompletableFuture<BlockRange> acquire = CompletableFuture.supplyAsync(() -> {
          try {
            return service.acquire(version, 0, 2);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
        assertThat(journal.stalled.await(10, TimeUnit.SECONDS)).as("creation reached the journal").isTrue();
        assertThat(service.invalidatePath(version.path())).isEqualTo(1);
        journal.release.countDown();
        BlockRange lease = acquire.get(10, TimeUnit.SECONDS);
        assertThat(lease.dataFile()).isEqualTo(dataFile.toString());
        assertThat(dataFile).doesNotExist();
        assertThat(service.status(version, 0, 2).state(0)).isEqualTo(BlockState.MISSING);
        assertThat(service.usage().usedBytes()).isZero();
      } finally {
        journal.release.countDown();
      }
    }
  }
}
