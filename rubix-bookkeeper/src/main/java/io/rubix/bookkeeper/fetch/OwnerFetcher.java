package io.rubix.bookkeeper.fetch;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.rubix.core.peer.PeerFetchConfig;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.read.fetch.ArrivingBlock;
import io.rubix.core.read.fill.BlockFiller;
import io.rubix.core.read.fill.FillTask;
import io.rubix.core.read.fill.StartedFill;
import io.rubix.core.read.peer.HandoffSource;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.PeerFetchKeys;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.wire.TransferProtocol;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner side of peer fetches: fills blocks a peer asked for and this node lacks from the source,
 * through the read path's {@link BlockFiller} (so concurrent requests of several peers and local
 * readers for one block make one source read), within bounds: a pool of
 * {@code rubix.network.transfer.fetch.threads} fills and as many waiting (a request beyond them is not
 * filled), at most
 * {@code rubix.network.transfer.fetch.max.size} per request, an answer within
 * {@code rubix.network.transfer.fetch.timeout} (a fill that takes longer goes on and caches its
 * blocks), only for the configured schemes and allowed authorities ({@link PeerFetchConfig#fetches};
 * any other request is {@link Outcome#NOT_ALLOWED} before any connection is made). An object version
 * whose fill failed is not tried again for the backoff, so a broken object costs one failed request,
 * not one per read, and does not pause the other objects of its bucket; at most
 * {@value #MAX_PAUSED} versions are remembered (the least recently paused are forgotten first).
 *
 * <p>The bytes of blocks a fill fetches can be sent on as they arrive ({@link #arriving}), before they
 * are written and committed.
 *
 * <p>Threads: {@link #start} acquires the blocks in the caller's thread (a transfer worker) and fills
 * them on the bounded pool this class owns and shuts down in {@link #close()}; {@link #fill} and
 * {@link #await} wait for a fill. The backoff uses the injected clock.
 */
public final class OwnerFetcher implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnerFetcher.class);
  /** Most stores whose refused requests are logged (each once). */
  static final int MAX_WARNED_STORES = 64;
  /** Most object versions remembered as failed. */
  static final int MAX_PAUSED = 10_000;

  /** What a fill request came to. */
  public enum Outcome {
    /** The fill ran; the status says which blocks are cached now. */
    FILLED,
    /** The source no longer has the version. */
    STALE,
    /** Not tried: the pool is full or this version failed recently. */
    REFUSED,
    /** Never fetched: the scheme is not fetched for peers or the authority is not allowed. */
    NOT_ALLOWED,
    /** The source or the cache failed, or the fill took longer than the timeout. */
    FAILED
  }

  /** Opens the source of an object version with this node's own credentials; the source checks the version before its first read. */
  @FunctionalInterface
  public interface SourceOpener {
    Source open(ObjectVersion version) throws IOException;
  }

  private final PeerFetchConfig config;
  private final BlockFiller filler;
  private final SourceOpener sources;
  private final CacheStats stats;
  private final long backoffNanos;
  private final int maxBlocks;
  private final int blockSize;
  /** Null: blocks this node lacks come from the store only. */
  private final PeerReader handOff;
  private final ThreadPoolExecutor pool;
  /** Stores (scheme://authority, lower case) whose refused requests were logged. */
  private final Set<String> warnedStores = ConcurrentHashMap.newKeySet();
  /** Versions whose fill failed, until their backoff ends. */
  private final Cache<ObjectVersion, Boolean> paused;

  public OwnerFetcher(PeerFetchConfig config, int blockSize, BlockFiller filler, SourceOpener sources, CacheStats stats, Duration backoff,
      LongSupplier nanoTime) {
    this(config, blockSize, filler, sources, stats, backoff, nanoTime, null);
  }

  /**
   * {@link #OwnerFetcher(PeerFetchConfig, int, BlockFiller, SourceOpener, CacheStats, Duration, LongSupplier)}
   * that first takes blocks from their previous owners through {@code handOff} ({@link HandoffSource}; null: never).
   */
  public OwnerFetcher(PeerFetchConfig config, int blockSize, BlockFiller filler, SourceOpener sources, CacheStats stats, Duration backoff,
      LongSupplier nanoTime, PeerReader handOff) {
    this.handOff = handOff;
    this.blockSize = blockSize;
    this.config = requireNonNull(config, "config is null");
    this.filler = requireNonNull(filler, "filler is null");
    this.sources = requireNonNull(sources, "sources is null");
    this.stats = requireNonNull(stats, "stats is null");
    requireNonNull(nanoTime, "nanoTime is null");
    this.backoffNanos = backoff.toNanos();
    this.paused = Caffeine.newBuilder().maximumSize(MAX_PAUSED).expireAfterWrite(backoff).ticker(nanoTime::getAsLong)
        .executor(Runnable::run).build();
    this.maxBlocks = (int) Math.max(1, Math.min(TransferProtocol.MAX_BLOCKS, config.maxBytes() / blockSize));
    AtomicInteger ids = new AtomicInteger();
    // as many fills may wait as run: a sequential reader asks for its read and its read-ahead chunks at once
    this.pool = new ThreadPoolExecutor(config.threads(), config.threads(), 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(config.threads()), r -> {
      Thread t = new Thread(r, "rubix-peer-fill-" + ids.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Counts a request for {@code path}, of a store this node does not fetch from for peers, and says so
   * in the log once per store (at most {@value #MAX_WARNED_STORES} stores): without it, peers silently
   * read from the store themselves what this node owns and could have cached once for all of them.
   */
  private void notAllowed(String path) {
    stats.add(CacheCounter.PEER_FILL_NOT_ALLOWED, 1);
    URI uri;
    try {
      uri = new Path(path).toUri();
    } catch (IllegalArgumentException e) {
      return;
    }
    String store = uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
    if (warnedStores.size() < MAX_WARNED_STORES && warnedStores.add(store.toLowerCase(Locale.ROOT))) {
      LOG.warn("Peers ask this node to fetch blocks of {} for them, which it does not fetch from (schemes {}, {} {}): they read those blocks "
          + "from the store themselves, uncached here. To let this node fetch them once for the cluster, add {} (or * for any) to {}. "
          + "Counted in rubix_peer_fill_not_allowed; said once per store", store, config.schemes(), PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name(),
          config.authorities().isEmpty() ? "names none: unset, and this daemon's configuration names no store" : "is " + config.authorities(),
          store, PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name());
    }
  }

  /** How long {@link #fill} may take. */
  public Duration timeout() {
    return config.timeout();
  }

  /**
   * Fills blocks {@code [first, end)} of {@code version} (at most the per-request limit of them,
   * from {@code first}) and waits for the fill up to the timeout. Never throws.
   */
  public Outcome fill(ObjectVersion version, int first, int end) {
    return await(start(version, first, end), first);
  }

  /**
   * Starts filling blocks {@code [first, end)} of {@code version} (at most the per-request limit of
   * them, from {@code first}) and returns at once: the blocks this node fetches can then be taken as
   * they arrive ({@link #arriving}), and the fill's outcome is {@link #await}ed. Never throws.
   */
  public Fill start(ObjectVersion version, int first, int end) {
    if (!config.fetches(version.path())) {
      notAllowed(version.path());
      return Fill.of(Outcome.NOT_ALLOWED);
    }
    if (paused.getIfPresent(version) != null) {
      return Fill.of(refused());
    }
    int fillEnd = Math.min(end, first + maxBlocks);
    StartedFill started;
    try {
      Source source = HandoffSource.wrap(counted(sources.open(version)), handOff, version, blockSize, stats);
      started = filler.start(version, source, new StreamStats(stats), first, fillEnd, config.timeout(), pool);
    } catch (RejectedExecutionException e) {
      return Fill.of(refused());
    } catch (IOException | RuntimeException e) {
      return Fill.of(outcome(version, first, fillEnd, null, e));
    }
    stats.add(CacheCounter.PEER_FILL_REQUESTS, 1);
    return new Fill(started.done().handle((after, failure) -> outcome(version, first, fillEnd, after, failure)), fillEnd, started);
  }

  /**
   * Block {@code block} of {@code version} while this node fetches it, its bytes as they arrive: the one
   * {@code fill} started with, else the one under way now; null when there is none.
   */
  public ArrivingBlock arriving(Fill fill, ObjectVersion version, int block) {
    ArrivingBlock started = fill.started() == null ? null : fill.started().arriving(block);
    return started != null ? started : filler.arriving(version, block);
  }

  /** Waits for {@code fill} up to the timeout; a fill that takes longer goes on in the background. Never throws. */
  public Outcome await(Fill fill, int first) {
    try {
      return fill.outcome().get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Outcome.FAILED;
    } catch (TimeoutException e) {
      LOG.debug("Filling blocks [{}, {}) for a peer takes longer than {}; it goes on in the background", first, fill.end(), config.timeout());
      stats.add(CacheCounter.PEER_FILL_FAILED, 1);
      return Outcome.FAILED;
    } catch (ExecutionException e) {
      return Outcome.FAILED;
    }
  }

  /** {@code source}, counting its requests and bytes for peers as they are made and arrive (before any of them is sent on). */
  private Source counted(Source source) {
    return new Source() {
      @Override
      public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        readFully(position, buffer, offset, length, arrived -> { });
      }

      @Override
      public void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
        stats.add(CacheCounter.PEER_FILL_SOURCE_REQUESTS, 1);
        int[] counted = {0};
        source.readFully(position, buffer, offset, length, n -> {
          stats.add(CacheCounter.PEER_FILL_SOURCE_BYTES, n - counted[0]);
          counted[0] = n;
          arrived.accept(n);
        });
      }
    };
  }

  private Outcome outcome(ObjectVersion version, int first, int end, BlockRange after, Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    if (cause == null) {
      LOG.debug("Filled blocks [{}, {}) of {} for a peer: first block {}", first, end, version.path(), after.state(first));
      return Outcome.FILLED;
    }
    if (cause instanceof StaleVersionException) {
      LOG.debug("Peer asked for {} which the source no longer has: {}", version, cause.getMessage());
      stats.add(CacheCounter.PEER_FILL_STALE, 1);
      return Outcome.STALE;
    }
    paused.put(version, Boolean.TRUE);
    stats.add(CacheCounter.PEER_FILL_FAILED, 1);
    LOG.warn("Filling blocks [{}, {}) of {} for a peer failed; not fetching that version for peers for {}: {}", first, end, version,
        Duration.ofNanos(backoffNanos), cause.toString());
    return Outcome.FAILED;
  }

  /**
   * A fill started by {@link #start}: its outcome once it ends (complete at once when it was not
   * started), the end of the blocks it fills, and the blocks it found or put under way (null when not started).
   */
  public record Fill(CompletableFuture<Outcome> outcome, int end, StartedFill started) {
    public Fill {
      requireNonNull(outcome, "outcome is null");
    }

    static Fill of(Outcome outcome) {
      return new Fill(CompletableFuture.completedFuture(outcome), 0, null);
    }
  }

  private Outcome refused() {
    stats.add(CacheCounter.PEER_FILL_BUSY, 1);
    return Outcome.REFUSED;
  }

  /** Stops the fills: running ones are interrupted, queued ones give their grants back at once. */
  @Override
  public void close() {
    FillTask.discardAll(pool.shutdownNow());
  }
}
