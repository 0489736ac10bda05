package io.rubix.core.read.fill;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.read.fetch.SourceFetches;
import io.rubix.core.read.session.Admission;
import io.rubix.core.read.session.BlockAdmission;
import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FillsTest {
  /** 8 blocks; chunks of 3 blocks. */
  private static final long LENGTH = 8L * BLOCK;
  private static final Executor DIRECT = Runnable::run;

  @TempDir
  Path root;

  private static Fills fills(ReadFixture fixture, BlockAdmission admission, Executor fetchExecutor) {
    SourceFetches fetches = new SourceFetches(BLOCK, 3, fixture.service, fixture.store, DIRECT, FailurePolicy.FALL_BACK, Duration.ofSeconds(5));
    return new Fills(fixture.service, fetches, new Admission(admission, BLOCK), fetchExecutor, new SourceReads(BLOCK, 1, fetchExecutor), false, FailurePolicy.FALL_BACK);
  }

  @Test
  void fillCachesTheMissingBlocksWithOneSourceReadPerChunk() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      Fills fills = fills(fixture, BlockAdmission.ALL, DIRECT);

      BlockRange after = fills.fill(fixture.session(), 1, 8, 1000);
      assertThat(after.allCached(1, 8)).isTrue();
      assertThat(fixture.service.status(fixture.version, 0, 1).state(0)).isEqualTo(BlockState.MISSING);
      // [1, 4), [4, 7), [7, 8)
      assertThat(fixture.sourceRequests).hasValue(3);
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).isEqualTo(7L * BLOCK);
      assertThat(fixture.count(CacheCounter.MISS_BYTES)).isZero();

      // a second fill of cached blocks reads nothing
      assertThat(fills.fill(fixture.session(), 0, 8, 1000).allCached(1, 8)).isTrue();
      assertThat(fixture.sourceRequests).hasValue(4);
    }
  }

  @Test
  void aFillThatFindsTheVersionGoneSaysSoAndLeavesNothingInFlight() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      Fills fills = fills(fixture, BlockAdmission.ALL, DIRECT);
      AtomicInteger calls = new AtomicInteger();
      // chunks [3, 6) and [6, 8) run first (submitted to the direct executor) and find the object changed; the
      // caller's own chunk [0, 3) then fails with a plain error: the stale one, suppressed under it, is what a peer must hear
      ReadSession s = fixture.session(fixture.failingSource(() -> calls.getAndIncrement() < 2
          ? new StaleVersionException("s3a://bucket/key changed") : new IOException("connection reset")));

      assertThatThrownBy(() -> fills.fill(s, 0, 8, 1000)).isInstanceOf(StaleVersionException.class);
      assertThat(calls).hasValue(3);
      BlockRange after = fixture.service.status(fixture.version, 0, 8);
      for (int b = 0; b < 8; b++) {
        assertThat(after.state(b)).as("block %s", b).isEqualTo(BlockState.MISSING);
      }
    }
  }

  @Test
  void readAheadFetchesOnlyAdmittedBlocksInTheBackground() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      Queue<Runnable> queued = new ArrayDeque<>();
      // this node caches blocks 0-3 only
      Fills fills = fills(fixture, (path, offset) -> offset < 4L * BLOCK, queued::add);

      fills.fetchAhead(fixture.session(), 1, 8, true);
      // nothing fetched in the reader's thread; the admitted blocks are in flight until their chunk task runs
      assertThat(fixture.sourceRequests).hasValue(0);
      assertThat(fixture.count(CacheCounter.READAHEAD_BLOCKS)).isEqualTo(3);
      assertThat(fixture.service.status(fixture.version, 1, 4).state(1)).isEqualTo(BlockState.IN_FLIGHT);
      while (!queued.isEmpty()) {
        queued.poll().run();
      }
      BlockRange after = fixture.service.status(fixture.version, 0, 8);
      assertThat(after.allCached(1, 4)).isTrue();
      for (int b = 4; b < 8; b++) {
        assertThat(after.state(b)).as("block %s", b).isEqualTo(BlockState.MISSING);
      }
      assertThat(fixture.sourceRequests).hasValue(1);
    }
  }

  @Test
  void aRefusedReadAheadGivesItsBlocksBack() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      Fills fills = fills(fixture, BlockAdmission.ALL, task -> {
        throw new RejectedExecutionException("busy");
      });
      fills.fetchAhead(fixture.session(), 0, 8, true);
      BlockRange after = fixture.service.status(fixture.version, 0, 8);
      for (int b = 0; b < 8; b++) {
        assertThat(after.state(b)).as("block %s", b).isEqualTo(BlockState.MISSING);
      }
      assertThat(fixture.sourceRequests).hasValue(0);
    }
  }
}
