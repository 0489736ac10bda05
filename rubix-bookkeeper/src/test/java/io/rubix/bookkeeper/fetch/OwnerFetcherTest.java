package io.rubix.bookkeeper.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.bookkeeper.fetch.OwnerFetcher.Outcome;
import io.rubix.core.CacheEngine;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.peer.PeerFetchConfig;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner side's bounds, with a real metadata service and block store and hand-written sources
 * that inject faults (slow, failing, stale).
 */
class OwnerFetcherTest {
  private static final int BLOCK = 4096;
  private static final ObjectVersion VERSION = new ObjectVersion("s3a://bucket/object", 10 * BLOCK, 1, "\"e\"");
  @TempDir
  Path tmp;
  private InProcessMetadataService service;
  private CacheEngine engine;
  private final AtomicLong clock = new AtomicLong();
  private final AtomicInteger reads = new AtomicInteger();

  @BeforeEach
  void start() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", tmp.toString());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.fetch.chunk.size", Integer.toString(4 * BLOCK));
    conf.set("rubix.cache.jmx.enabled", "false");
    CacheConfig config = CacheConfig.from(conf);
    service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(tmp), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(60)).build());
    engine = CacheEngine.withService(config, service, "test", ChannelOpener.DEFAULT);
  }

  @AfterEach
  void stop() throws IOException {
    engine.close();
    service.close();
  }

  private OwnerFetcher fetcher(int threads, Duration timeout, long maxBytes, OwnerFetcher.SourceOpener sources) {
    PeerFetchConfig config = new PeerFetchConfig(true, threads, timeout, maxBytes, Set.of("s3a"), 0);
    return new OwnerFetcher(config, BLOCK, engine.filler(), sources, engine.stats(), Duration.ofSeconds(30), clock::get);
  }

  /** A source of {@code VERSION} whose bytes are their offsets, counting reads. */
  private Source bytes() {
    return (position, buffer, offset, length) -> {
      reads.incrementAndGet();
      for (int i = 0; i < length; i++) {
        buffer[offset + i] = (byte) (position + i);
      }
    };
  }

  @Test
  void fillsAtMostTheLimitFromTheFirstBlockWithOneReadPerChunk() throws IOException {
    try (OwnerFetcher fetcher = fetcher(2, Duration.ofSeconds(10), 6 * BLOCK, version -> bytes())) {
      assertThat(fetcher.fill(VERSION, 1, 10)).isEqualTo(Outcome.FILLED);
      var status = service.status(VERSION, 0, 10);
      for (int b = 0; b < 10; b++) {
        assertThat(status.state(b)).as("block %s", b).isEqualTo(b >= 1 && b < 7 ? BlockState.CACHED : BlockState.MISSING);
      }
      assertThat(reads.get()).as("two chunks of at most 4 blocks").isEqualTo(2);
      assertThat(engine.stats().get(CacheCounter.PEER_FILL_SOURCE_REQUESTS)).isEqualTo(2);
      assertThat(engine.stats().get(CacheCounter.PEER_FILL_SOURCE_BYTES)).isEqualTo(6L * BLOCK);
      // cached blocks are not fetched again
      assertThat(fetcher.fill(VERSION, 1, 7)).isEqualTo(Outcome.FILLED);
      assertThat(reads.get()).isEqualTo(2);
    }
  }

  @Test
  void closingGivesBackTheGrantsOfFillsStillQueued() throws Exception {
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Source slow = (position, buffer, offset, length) -> {
      reading.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        throw new java.io.InterruptedIOException();
      }
      bytes().readFully(position, buffer, offset, length);
    };
    OwnerFetcher fetcher = fetcher(1, Duration.ofSeconds(10), 1 << 20, version -> slow);
    OwnerFetcher.Fill running = fetcher.start(VERSION, 0, 1);
    assertThat(reading.await(10, TimeUnit.SECONDS)).as("the one fill thread is reading").isTrue();
    OwnerFetcher.Fill queued = fetcher.start(VERSION, 5, 7);
    assertThat(service.status(VERSION, 5, 7).state(5)).as("granted to the queued fill").isEqualTo(BlockState.IN_FLIGHT);

    fetcher.close();

    // the queued fill never runs: its blocks are free for the next reader now, not after the 60 s lease timeout
    assertThat(service.status(VERSION, 5, 7).state(5)).isEqualTo(BlockState.MISSING);
    assertThat(service.status(VERSION, 5, 7).state(6)).isEqualTo(BlockState.MISSING);
    assertThat(queued.outcome().get(10, TimeUnit.SECONDS)).isEqualTo(Outcome.FAILED);
    release.countDown();
    assertThat(running.outcome().get(10, TimeUnit.SECONDS)).isIn(Outcome.FILLED, Outcome.FAILED);
  }

  @Test
  void aFullPoolAndASlowSourceAnswerWithinTheTimeoutAndTheFillGoesOn() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Source slow = (position, buffer, offset, length) -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        throw new java.io.InterruptedIOException();
      }
      bytes().readFully(position, buffer, offset, length);
    };
    try (OwnerFetcher fetcher = fetcher(1, Duration.ofMillis(200), 1 << 20, version -> slow)) {
      long start = System.nanoTime();
      assertThat(fetcher.fill(VERSION, 0, 1)).isEqualTo(Outcome.FAILED);
      // the one fill thread is still busy: the next request waits for it (no longer than the timeout), the one after is refused at once
      assertThat(fetcher.fill(VERSION, 5, 6)).isEqualTo(Outcome.FAILED);
      assertThat(fetcher.fill(VERSION, 7, 8)).isEqualTo(Outcome.REFUSED);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
      assertThat(engine.stats().get(CacheCounter.PEER_FILL_BUSY)).isEqualTo(1);
      release.countDown();
      // the slow fill finishes in the background and caches its block
      var after = service.awaitInFlight(VERSION, 0, 1, 10_000);
      assertThat(after.state(0)).isEqualTo(BlockState.CACHED);
    }
  }

  @Test
  void aFailingSourceIsNotTriedAgainForTheBackoffAndStaleIsNotAFailure() throws IOException {
    AtomicInteger opens = new AtomicInteger();
    Source failing = (position, buffer, offset, length) -> {
      throw new java.nio.file.AccessDeniedException("s3a://bucket/object: 403");
    };
    try (OwnerFetcher fetcher = fetcher(2, Duration.ofSeconds(10), 1 << 20, version -> {
      opens.incrementAndGet();
      return failing;
    })) {
      assertThat(fetcher.fill(VERSION, 0, 1)).isEqualTo(Outcome.FAILED);
      assertThat(fetcher.fill(VERSION, 1, 2)).isEqualTo(Outcome.REFUSED);
      assertThat(opens.get()).isEqualTo(1);
      assertThat(service.status(VERSION, 0, 1).state(0)).as("the failed fill gave its lease back").isEqualTo(BlockState.MISSING);
      clock.addAndGet(Duration.ofSeconds(31).toNanos());
      assertThat(fetcher.fill(VERSION, 1, 2)).isEqualTo(Outcome.FAILED);
      assertThat(opens.get()).isEqualTo(2);
    }
    Source stale = (position, buffer, offset, length) -> {
      throw new StaleVersionException("changed");
    };
    try (OwnerFetcher fetcher = fetcher(2, Duration.ofSeconds(10), 1 << 20, version -> stale)) {
      assertThat(fetcher.fill(VERSION, 0, 1)).isEqualTo(Outcome.STALE);
      assertThat(fetcher.fill(VERSION, 0, 1)).as("no backoff after STALE").isEqualTo(Outcome.STALE);
      assertThat(engine.stats().get(CacheCounter.PEER_FILL_STALE)).isEqualTo(2);
    }
  }

  @Test
  void aFailedObjectDoesNotPauseFillsOfOtherObjectsOfItsBucket() throws IOException {
    ObjectVersion broken = new ObjectVersion("s3a://bucket/broken", 10 * BLOCK, 1, "\"b\"");
    Source failing = (position, buffer, offset, length) -> {
      throw new IOException("s3a://bucket/broken: 500");
    };
    try (OwnerFetcher fetcher = fetcher(2, Duration.ofSeconds(10), 1 << 20, version -> version.equals(broken) ? failing : bytes())) {
      assertThat(fetcher.fill(broken, 0, 1)).isEqualTo(Outcome.FAILED);
      assertThat(fetcher.fill(broken, 1, 2)).as("the broken object is paused").isEqualTo(Outcome.REFUSED);
      assertThat(fetcher.fill(VERSION, 0, 1)).as("another object of the bucket is not").isEqualTo(Outcome.FILLED);
      assertThat(service.status(VERSION, 0, 1).state(0)).isEqualTo(BlockState.CACHED);
    }
  }

  @Test
  void onlyConfiguredSchemesAreFetched() {
    try (OwnerFetcher fetcher = fetcher(2, Duration.ofSeconds(10), 1 << 20, version -> bytes())) {
      assertThat(fetcher.fill(new ObjectVersion("file:/etc/passwd", BLOCK, 1, ""), 0, 1)).isEqualTo(Outcome.NOT_ALLOWED);
      assertThat(fetcher.fill(new ObjectVersion("gs://bucket/object", BLOCK, 1, ""), 0, 1)).isEqualTo(Outcome.NOT_ALLOWED);
      assertThat(reads.get()).isZero();
    }
    Configuration conf = new Configuration(false);
    conf.set("rubix.network.transfer.fetch.schemes", "s3a,file");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> PeerFetchConfig.from(conf))
        .hasMessageContaining("rubix.network.transfer.fetch.schemes");
  }

  @Test
  void onlyAuthoritiesTheConfigurationNamesAreFetchedAndNothingIsOpenedForOthers() {
    Configuration conf = new Configuration(false);
    // unset: the authorities the daemon's own configuration names
    conf.set("fs.defaultFS", "hdfs://NameNode:8020");
    conf.set("fs.s3a.bucket.bucket.endpoint", "http://127.0.0.1:9000");
    conf.set("fs.s3a.bucket.logs.aws.credentials.provider", "x");
    conf.set("fs.unknown.bucket.elsewhere.endpoint", "x");
    PeerFetchConfig derived = PeerFetchConfig.from(conf);
    assertThat(derived.authorities()).containsExactlyInAnyOrder("hdfs://namenode:8020", "s3a://bucket", "s3a://logs");
    assertThat(derived.fetches("s3a://bucket/dir/a b.orc")).isTrue();
    assertThat(derived.fetches("s3a://Bucket/object")).isTrue();
    assertThat(derived.fetches("hdfs://namenode:8020/warehouse/t")).isTrue();
    assertThat(derived.fetches("s3a://other/object")).isFalse();
    assertThat(derived.fetches("s3a://169.254.169.254/latest/meta-data")).isFalse();
    assertThat(derived.fetches("hdfs://namenode:9000/x")).isFalse();
    assertThat(derived.fetches("s3a:///no-authority")).isFalse();
    assertThat(derived.fetches("gs://bucket/object")).as("the bucket is named for s3a only").isFalse();
    assertThat(PeerFetchConfig.from(new Configuration(false)).authorities()).as("a configuration that names no store").isEmpty();
    conf.set("rubix.network.transfer.fetch.allowed.authorities", "other, *");
    assertThat(PeerFetchConfig.from(conf).fetches("s3a://anything/object")).isTrue();
    conf.set("rubix.network.transfer.fetch.allowed.authorities", "Other");
    assertThat(PeerFetchConfig.from(conf).fetches("s3a://other/object")).isTrue();
    assertThat(PeerFetchConfig.from(conf).fetches("gs://other/object")).isTrue();
    assertThat(PeerFetchConfig.from(conf).fetches("s3a://bucket/object")).isFalse();

    AtomicInteger opens = new AtomicInteger();
    PeerFetchConfig config = new PeerFetchConfig(true, 2, Duration.ofSeconds(10), 1 << 20, Set.of("s3a"), 0, Set.of("bucket"));
    try (OwnerFetcher fetcher = new OwnerFetcher(config, BLOCK, engine.filler(), version -> {
      opens.incrementAndGet();
      return bytes();
    }, engine.stats(), Duration.ofSeconds(30), clock::get)) {
      assertThat(fetcher.fill(new ObjectVersion("s3a://other/object", 10 * BLOCK, 1, ""), 0, 1)).isEqualTo(Outcome.NOT_ALLOWED);
      assertThat(fetcher.fill(new ObjectVersion("s3a://other/object2", 10 * BLOCK, 1, ""), 0, 1)).isEqualTo(Outcome.NOT_ALLOWED);
      assertThat(opens.get()).as("no source opened for a store that is not allowed").isZero();
      assertThat(engine.stats().get(CacheCounter.PEER_FILL_NOT_ALLOWED)).as("each refusal counted").isEqualTo(2);
      assertThat(fetcher.fill(VERSION, 0, 1)).isEqualTo(Outcome.FILLED);
      assertThat(opens.get()).isEqualTo(1);
    }
  }

  @Test
  void concurrentFillsOfOneBlockReadTheSourceOnce() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Source gated = (position, buffer, offset, length) -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        throw new java.io.InterruptedIOException();
      }
      bytes().readFully(position, buffer, offset, length);
    };
    try (OwnerFetcher fetcher = fetcher(4, Duration.ofSeconds(20), 1 << 20, version -> gated)) {
      List<CompletableFuture<Outcome>> fills = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        fills.add(CompletableFuture.supplyAsync(() -> fetcher.fill(VERSION, 2, 3)));
      }
      // all three have asked before the source answers: one holds the lease, the others wait for it
      while (engine.stats().get(CacheCounter.PEER_FILL_REQUESTS) < 3) {
        Thread.onSpinWait();
      }
      release.countDown();
      for (CompletableFuture<Outcome> fill : fills) {
        assertThat(fill.get(20, TimeUnit.SECONDS)).isEqualTo(Outcome.FILLED);
      }
      assertThat(reads.get()).isEqualTo(1);
      assertThat(service.status(VERSION, 2, 3).state(2)).isEqualTo(BlockState.CACHED);
    }
  }
}
