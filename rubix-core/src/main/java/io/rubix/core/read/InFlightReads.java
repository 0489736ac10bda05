package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.InFlightPolicy;
import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * Blocks a lease did not grant this reader: those another reader (of any JVM) is fetching, waited for as
 * {@code rubix.cache.inflight.policy} says and then read from the cache, and those the lease says are
 * cached; whatever the cache does not serve after all comes from the source, never fetched again (the
 * lease already gave those blocks to someone else). Part of {@link BlockReader}'s planning; calls down only.
 */
final class InFlightReads {
  private final int blockSize;
  private final InFlightPolicy policy;
  private final long waitMillis;
  private final CacheMetadataService service;
  private final FailurePolicy failures;
  private final CachedBlocks cached;
  private final SourceReads sourceReads;

  InFlightReads(int blockSize, InFlightPolicy policy, long waitMillis, CacheMetadataService service, FailurePolicy failures,
      CachedBlocks cached, SourceReads sourceReads) {
    this.blockSize = blockSize;
    this.policy = requireNonNull(policy, "policy is null");
    this.waitMillis = waitMillis;
    this.service = requireNonNull(service, "service is null");
    this.failures = requireNonNull(failures, "failures is null");
    this.cached = requireNonNull(cached, "cached is null");
    this.sourceReads = requireNonNull(sourceReads, "sourceReads is null");
  }

  /** Reads blocks {@code [first, end)} another reader is fetching: once they are cached, else from the source. */
  void read(ReadSession s, int first, int end, Span span) throws IOException {
    if (policy == InFlightPolicy.SOURCE) {
      sourceReads.read(s, span);
      return;
    }
    s.stats.add(CacheCounter.INFLIGHT_WAITS, 1);
    BlockRange after;
    try {
      after = service.awaitInFlight(s.version, first, end, waitMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for blocks [" + first + ", " + end + ") of " + s.version.path());
    } catch (IOException | RuntimeException e) {
      failures.metadataFailure(s, e);
      sourceReads.read(s, span);
      return;
    }
    for (int b = first; b < end; b++) {
      Span block = span.blocks(b, b + 1, blockSize);
      if (after.state(b) == BlockState.CACHED) {
        readCached(s, after, b, b + 1, block);
      } else {
        s.stats.add(CacheCounter.FALLBACK_INFLIGHT, 1);
        sourceReads.read(s, block);
      }
    }
  }

  /** Reads blocks {@code [first, end)} that {@code status} says are cached; the blocks the cache does not serve after all from the source. */
  void readCached(ReadSession s, BlockRange status, int first, int end, Span span) throws IOException {
    cached.readAll(s, status, first, end, span, (from, to, unserved) -> sourceReads.read(s, unserved));
  }
}
