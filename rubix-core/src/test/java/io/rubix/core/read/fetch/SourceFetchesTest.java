package io.rubix.core.read.fetch;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.FaultyChannels;
import io.rubix.core.read.session.ReadFixture;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourceFetchesTest {
  /** 7 blocks, the last one short: chunks of 2 blocks make 4 runs. */
  private static final long LENGTH = 6L * BLOCK + 300;
  private static final Executor DIRECT = Runnable::run;

  @TempDir
  Path root;

  private final ExecutorService chunkExecutor = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() throws InterruptedException {
    chunkExecutor.shutdownNow();
    assertThat(chunkExecutor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private static SourceFetches fetches(ReadFixture fixture, Executor writer, FailurePolicy failures) {
    return new SourceFetches(BLOCK, 2, fixture.service, fixture.store, writer, failures, Duration.ofSeconds(5));
  }

  /** Acquires every block of the object and fetches them for a read of {@code [from, to)}; returns the read's bytes. */
  private byte[] readAll(ReadFixture fixture, SourceFetches fetches, ReadSession s, long from, long to) throws IOException {
    BlockRange lease = fixture.service.acquire(fixture.version, 0, 7);
    Span span = new Span(from, ByteBuffer.allocate((int) (to - from)));
    try (GrantedRuns granted = fetches.grant(lease, 0, 7); ChunkFetches chunks = new ChunkFetches(chunkExecutor)) {
      fetches.fetchForRead(s, granted, granted.in(0, 7), chunks, span);
    }
    return span.buffer().array();
  }

  @Test
  void fetchesOneSourceRequestPerChunkCopiesTheCallersBytesAndCommitsEveryBlock() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      SourceFetches fetches = fetches(fixture, DIRECT, FailurePolicy.FALL_BACK);
      ReadSession s = fixture.session();

      assertThat(readAll(fixture, fetches, s, 1000, LENGTH - 100)).isEqualTo(fixture.bytes(1000, LENGTH - 100));
      assertThat(fixture.sourceRequests).hasValue(4);
      assertThat(fixture.count(CacheCounter.SOURCE_REQUESTS)).isEqualTo(4);
      assertThat(fixture.count(CacheCounter.SOURCE_BYTES)).isEqualTo(LENGTH);
      assertThat(fixture.count(CacheCounter.MISS_BYTES)).isEqualTo(LENGTH - 1100);
      assertThat(fixture.count(CacheCounter.MISS_BLOCKS)).isEqualTo(7);
      assertThat(fixture.count(CacheCounter.CACHE_WRITE_BYTES)).isEqualTo(LENGTH);
      assertThat(fixture.service.status(fixture.version, 0, 7).allCached(0, 7)).isTrue();
      for (int b = 0; b < 7; b++) {
        assertThat(fetches.fetching(s, b)).as("block %s in flight", b).isNull();
      }
    }
  }

  @Test
  void aFailedSourceReadGivesEveryBlockBack() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      SourceFetches fetches = fetches(fixture, DIRECT, FailurePolicy.FALL_BACK);
      ReadSession s = fixture.session(fixture.failingSource(() -> new StaleVersionException("s3a://bucket/key changed")));

      assertThatThrownBy(() -> readAll(fixture, fetches, s, 0, LENGTH)).isInstanceOf(StaleVersionException.class);
      BlockRange after = fixture.service.status(fixture.version, 0, 7);
      for (int b = 0; b < 7; b++) {
        assertThat(after.state(b)).as("block %s", b).isEqualTo(BlockState.MISSING);
        assertThat(fetches.fetching(s, b)).isNull();
      }
    }
  }

  @Test
  void aFailedCacheWriteStillAnswersTheReadUnlessStrict() throws IOException {
    FaultyChannels channels = new FaultyChannels();
    try (ReadFixture fixture = new ReadFixture(root, LENGTH, channels)) {
      channels.failWrites = true;
      ReadSession s = fixture.session();

      assertThat(readAll(fixture, fetches(fixture, DIRECT, FailurePolicy.FALL_BACK), s, 0, LENGTH)).isEqualTo(fixture.data);
      assertThat(fixture.count(CacheCounter.FALLBACK_CACHE_WRITE)).isEqualTo(4);
      BlockRange after = fixture.service.status(fixture.version, 0, 7);
      for (int b = 0; b < 7; b++) {
        assertThat(after.state(b)).as("block %s", b).isEqualTo(BlockState.MISSING);
      }

      assertThatThrownBy(() -> readAll(fixture, fetches(fixture, DIRECT, FailurePolicy.FAIL), s, 0, LENGTH))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("No space left on device");
    }
  }

  @Test
  void aRefusedBackgroundWriteEndsTheRunInsteadOfLeavingItInFlight() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      SourceFetches fetches = fetches(fixture, task -> {
        throw new RejectedExecutionException("writer queue full");
      }, FailurePolicy.FALL_BACK);
      ReadSession s = fixture.session();

      assertThat(readAll(fixture, fetches, s, 0, LENGTH)).isEqualTo(fixture.data);
      BlockRange after = fixture.service.status(fixture.version, 0, 7);
      for (int b = 0; b < 7; b++) {
        assertThat(after.state(b)).as("block %s", b).isEqualTo(BlockState.MISSING);
        assertThat(fetches.fetching(s, b)).isNull();
      }
    }
  }

  /** A reader of a block of a long run this JVM is fetching takes the block once its bytes are in, not once the whole run is. */
  @Test
  void aReaderCopiesABlockOfARunAsSoonAsItsBytesArrived() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      SourceFetches fetches = fetches(fixture, DIRECT, FailurePolicy.FALL_BACK);
      ReadSession s = fixture.session();
      BlockRange lease = fixture.service.acquire(fixture.version, 2, 6);
      try (GrantedRuns granted = fetches.grant(lease, 2, 6)) {
        GrantedRun run = granted.take(granted.in(2, 6).get(0));
        byte[] buffer = new byte[4 * BLOCK];
        System.arraycopy(fixture.data, 2 * BLOCK, buffer, 0, 2 * BLOCK);
        run.arriving().start(buffer);
        run.arriving().arrived(2 * BLOCK);
        // blocks 2 and 3 are in, 4 and 5 are not: the run is not published
        Span span = new Span(3L * BLOCK + 10, ByteBuffer.allocate(100));
        assertThat(fetches.copyFetched(s, fetches.fetching(s, 3), 3, span)).isTrue();
        assertThat(span.buffer().array()).isEqualTo(fixture.bytes(3L * BLOCK + 10, 3L * BLOCK + 110));
        assertThat(fetches.fetching(s, 3).isDone()).isFalse();
        run.close();
      }
    }
  }

  @Test
  void aReaderCopiesABlockFromThisJvmsFetchOrHearsThatItFailed() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      SourceFetches fetches = fetches(fixture, DIRECT, FailurePolicy.FALL_BACK);
      ReadSession s = fixture.session();
      BlockRange lease = fixture.service.acquire(fixture.version, 2, 6);
      try (GrantedRuns granted = fetches.grant(lease, 2, 6)) {
        GrantedRun published = granted.take(granted.in(2, 4).get(0));
        published.publish(fixture.bytes(2L * BLOCK, 4L * BLOCK), BLOCK);
        CompletableFuture<ByteBuffer> block3 = fetches.fetching(s, 3);
        Span span = new Span(3L * BLOCK + 10, ByteBuffer.allocate(100));
        assertThat(fetches.copyFetched(s, block3, 3, span)).isTrue();
        assertThat(span.buffer().array()).isEqualTo(fixture.bytes(3L * BLOCK + 10, 3L * BLOCK + 110));
        assertThat(fixture.count(CacheCounter.MISS_BYTES)).isEqualTo(100);
        assertThat(fixture.count(CacheCounter.MISS_BLOCKS)).isEqualTo(1);
        assertThat(fixture.sourceRequests).hasValue(0);

        GrantedRun failed = granted.take(granted.in(4, 6).get(0));
        CompletableFuture<ByteBuffer> block4 = fetches.fetching(s, 4);
        failed.close();
        assertThat(fetches.copyFetched(s, block4, 4, new Span(4L * BLOCK, ByteBuffer.allocate(10)))).isFalse();
        assertThat(fixture.count(CacheCounter.MISS_BLOCKS)).isEqualTo(1);
        published.close();
      }
      assertThat(fetches.fetching(s, 2)).isNull();
    }
  }

  @Test
  void fetchAndCacheCachesARunForNobodysRead() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, LENGTH)) {
      SourceFetches fetches = fetches(fixture, DIRECT, FailurePolicy.FALL_BACK);
      ReadSession s = fixture.session();
      BlockRange lease = fixture.service.acquire(fixture.version, 5, 7);
      try (GrantedRuns granted = fetches.grant(lease, 5, 7)) {
        fetches.fetchAndCache(s, granted.take(granted.in(5, 7).get(0)));
      }
      assertThat(fixture.service.status(fixture.version, 5, 7).allCached(5, 7)).isTrue();
      assertThat(fixture.sourceRequests).hasValue(1);
      assertThat(fixture.count(CacheCounter.MISS_BYTES)).isZero();
      assertThat(fixture.count(CacheCounter.CACHE_WRITE_BYTES)).isEqualTo(BLOCK + 300);
    }
  }
}
