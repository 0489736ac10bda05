package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9, scenario 9: clients waiting for in-flight blocks never occupy a server worker. With one
 * worker thread and several waiting clients, the fetcher's commit is served at once and wakes them all.
 */
class WaitingTest {
  private static final int BLOCK_SIZE = 1 << 20;
  private static final int WAITERS = 6;

  @TempDir
  Path cacheDir;

  @Test
  void waitersDoNotHoldTheWorkersTheFetchersCommitNeeds() throws Exception {
    Configuration daemon = BookKeeperTestSupport.daemonConf(cacheDir);
    daemon.set("rubix.network.server.worker.threads", "1");
    ObjectVersion version = new ObjectVersion("s3a://bucket/t/part-0.orc", 4L * BLOCK_SIZE, 1_700_000_000_000L, "etag");
    List<BookKeeperClient> clients = new ArrayList<>();
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemon)); BookKeeperClient fetcher = client(bookKeeper.port())) {
      BlockRange grant = fetcher.acquire(version, 0, 1);
      assertThat(grant.state(0)).isEqualTo(BlockState.GRANTED);
      List<CompletableFuture<BlockRange>> waiting = new ArrayList<>();
      for (int i = 0; i < WAITERS; i++) {
        BookKeeperClient waiter = client(bookKeeper.port());
        clients.add(waiter);
        waiting.add(CompletableFuture.supplyAsync(() -> {
          try {
            return waiter.awaitInFlight(version, 0, 1, 1_500);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }));
      }
      // every waiter is waiting at once: with one worker, that is only possible if waiting holds none
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (bookKeeper.stats().get("rubix_bookkeeper_leases_waiting") < WAITERS) {
        assertThat(System.nanoTime()).as("%s clients waiting at once on one worker", WAITERS).isLessThan(deadline);
        Thread.onSpinWait();
      }

      byte[] bytes = new byte[BLOCK_SIZE];
      Arrays.fill(bytes, (byte) 7);
      try (FileChannel channel = FileChannel.open(Path.of(grant.dataFile()), StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(bytes), 0);
      }
      CRC32C crc = new CRC32C();
      crc.update(bytes);
      assertThat(fetcher.commit(grant.leaseId(), new int[] {0}, new int[] {(int) crc.getValue()})).isEqualTo(1);

      for (CompletableFuture<BlockRange> future : waiting) {
        assertThat(future.get(10, TimeUnit.SECONDS).state(0)).as("woken by the commit, not by its timeout").isEqualTo(BlockState.CACHED);
      }
      assertThat(bookKeeper.stats().get("rubix_bookkeeper_leases_waiting")).isZero();
    } finally {
      clients.forEach(BookKeeperClient::close);
    }
  }

  /** A waiter whose fetcher never commits is answered at its timeout, with the block still in flight, and holds nothing after. */
  @Test
  void aWaiterIsAnsweredAtItsTimeout() throws Exception {
    Configuration daemon = BookKeeperTestSupport.daemonConf(cacheDir);
    daemon.set("rubix.network.server.worker.threads", "1");
    ObjectVersion version = new ObjectVersion("s3a://bucket/t/part-1.orc", 2L * BLOCK_SIZE, 1_700_000_000_000L, "etag");
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemon)); BookKeeperClient client = client(bookKeeper.port())) {
      assertThat(client.acquire(version, 0, 1).state(0)).isEqualTo(BlockState.GRANTED);
      long start = System.nanoTime();
      assertThat(client.awaitInFlight(version, 0, 1, 300).state(0)).isEqualTo(BlockState.IN_FLIGHT);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(300);
      assertThat(bookKeeper.stats().get("rubix_bookkeeper_leases_waiting")).isZero();
    }
  }

  private BookKeeperClient client(int port) {
    Configuration conf = BookKeeperTestSupport.clientConf(cacheDir, port);
    conf.set("rubix.network.client.read.timeout", "5s");
    return BookKeeperTestSupport.client(conf, BLOCK_SIZE);
  }
}
