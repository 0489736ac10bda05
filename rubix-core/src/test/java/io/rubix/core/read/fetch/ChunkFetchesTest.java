package io.rubix.core.read.fetch;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkFetchesTest {
  @TempDir
  Path root;

  private ReadFixture fixture;
  private final InFlightBuffers inFlight = new InFlightBuffers();
  /** An executor the test runs by hand: tasks wait in the queue until it says. */
  private final Queue<Runnable> queued = new ArrayDeque<>();

  @BeforeEach
  void setUp() {
    fixture = new ReadFixture(root, 8L * BLOCK);
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private GrantedRun grant(int block) throws IOException {
    BlockRange lease = fixture.service.acquire(fixture.version, block, block + 1);
    return new GrantedRun(fixture.service, inFlight, fixture.version, lease.leaseId(), Path.of(lease.dataFile()), block, block + 1);
  }

  private void runQueued() {
    while (!queued.isEmpty()) {
      queued.poll().run();
    }
  }

  @Test
  void closeWaitsForEveryChunkBeforeItReturns() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger finished = new AtomicInteger();
      try (ChunkFetches fetches = new ChunkFetches(executor)) {
        for (int b = 0; b < 2; b++) {
          assertThat(fetches.submit(grant(b), run -> {
            try (run) {
              release.await();
              finished.incrementAndGet();
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
          })).isTrue();
        }
        assertThat(finished).hasValue(0);
        release.countDown();
      }
      // close returned: both chunks are over, nothing writes into the caller's buffer any more
      assertThat(finished).hasValue(2);
    } finally {
      executor.shutdownNow();
      assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void closeThrowsTheStaleVersionFirstWithTheOtherFailuresSuppressed() throws Exception {
    IOException disk = new IOException("disk");
    StaleVersionException stale = new StaleVersionException("s3a://bucket/key changed");
    ChunkFetches fetches = new ChunkFetches(queued::add);
    fetches.submit(grant(0), run -> {
      run.close();
      throw disk;
    });
    fetches.submit(grant(1), run -> {
      run.close();
      throw stale;
    });
    fetches.submit(grant(2), run -> {
      run.close();
      throw new IllegalStateException("bug");
    });
    runQueued();
    assertThatThrownBy(fetches::close).isSameAs(stale);
    assertThat(stale.getSuppressed()).hasSize(2);
    assertThat(stale.getSuppressed()[0]).isSameAs(disk);
    // the non-IO failure is wrapped and kept too
    assertThat(stale.getSuppressed()[1]).isInstanceOf(IOException.class).hasMessage("Fetching a chunk failed")
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void cancelledChunksGiveTheirBlocksBackInsteadOfFetching() throws Exception {
    AtomicBoolean fetched = new AtomicBoolean();
    try (ChunkFetches fetches = new ChunkFetches(queued::add)) {
      assertThat(fetches.submit(grant(3), run -> fetched.set(true))).isTrue();
      fetches.cancel();
      runQueued();
    }
    assertThat(fetched).isFalse();
    assertThat(inFlight.get(fixture.version, 3)).isNull();
    assertThat(fixture.service.status(fixture.version, 3, 4).state(3)).isEqualTo(BlockState.MISSING);
  }

  @Test
  void aRefusedChunkStaysTheCallersRun() throws Exception {
    GrantedRun run = grant(4);
    try (ChunkFetches fetches = new ChunkFetches(task -> {
      throw new RejectedExecutionException("full");
    })) {
      assertThat(fetches.submit(run, r -> {
        throw new AssertionError("never runs");
      })).isFalse();
    }
    // nobody ended it: still in flight, the caller's to end
    assertThat(inFlight.get(fixture.version, 4)).isNotNull();
    run.close();
    assertThat(inFlight.get(fixture.version, 4)).isNull();
  }
}
