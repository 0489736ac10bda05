package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Status calls are answered on the selector threads, so they do not queue behind worker threads that
 * are busy; waiting calls ({@code awaitInFlight}) hold no thread at all (see {@link WaitingTest}).
 */
class InlineCallTest {
  private static final int BLOCK_SIZE = 1 << 20;

  @TempDir
  Path cacheDir;

  @Test
  void statusIsAnsweredWhileTheOnlyWorkerWaits() throws Exception {
    Configuration daemon = BookKeeperTestSupport.daemonConf(cacheDir);
    daemon.set("rubix.network.server.worker.threads", "1");
    ObjectVersion version = new ObjectVersion("s3a://bucket/t/part-0.orc", 4L * BLOCK_SIZE, 1_700_000_000_000L, "etag");
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemon));
        BookKeeperClient waiter = client(bookKeeper.port());
        BookKeeperClient asker = client(bookKeeper.port())) {
      BlockRange grant = bookKeeper.service().acquire(version, 0, 1);
      assertThat(grant.state(0)).isEqualTo(BlockState.GRANTED);
      // the only worker waits up to 1.5 s for block 0, which nobody commits
      CompletableFuture<BlockRange> waiting = CompletableFuture.supplyAsync(() -> {
        try {
          return waiter.awaitInFlight(version, 0, 1, 1_500);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      awaitWaiting(bookKeeper, waiting);

      long start = System.nanoTime();
      BlockRange status = asker.status(version, 0, 4);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(status.state(0)).isEqualTo(BlockState.IN_FLIGHT);
      assertThat(waiting).isNotDone();
      assertThat(millis).as("status call time while the worker waits").isLessThan(1_000);
      assertThat(waiting.get(10, TimeUnit.SECONDS).state(0)).isEqualTo(BlockState.IN_FLIGHT);
    }
  }

  /** Waits until the awaitInFlight call is waiting on the daemon, so the only worker is busy with it. */
  private static void awaitWaiting(BookKeeper bookKeeper, CompletableFuture<?> waiting) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (bookKeeper.stats().getOrDefault("rubix_bookkeeper_leases_waiting", 0L) == 0 && !waiting.isDone()) {
      assertThat(System.nanoTime()).as("awaitInFlight call waiting").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private BookKeeperClient client(int port) {
    Configuration conf = BookKeeperTestSupport.clientConf(cacheDir, port);
    conf.set("rubix.network.client.read.timeout", Duration.ofSeconds(5).toMillis() + "ms");
    return BookKeeperTestSupport.client(conf, BLOCK_SIZE);
  }
}
