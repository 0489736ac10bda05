package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.BlockStore;
import io.rubix.core.store.CacheCorruptionException;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bytes from blocks the metadata service says are cached: positioned reads from their data file,
 * each checked against the block's CRC32C by the {@link BlockStore}.
 *
 * <p>Design: stateless beyond its collaborators; runs in the reader's thread (or a chunk's), any number
 * at once. It may call the store, the metadata service (to report a bad block) and the
 * {@link FailurePolicy}; it never reads the source nor fetches: a block it cannot serve is returned
 * as {@link Unserved}, and the caller (the {@link BlockReader}) decides how to read it instead.
 */
final class CachedBlocks {
  private static final Logger LOG = LoggerFactory.getLogger(CachedBlocks.class);

  /** Blocks {@code [first, end)} a read of cached blocks did not serve: the caller reads them another way, then the rest of the run. */
  record Unserved(int first, int end) {}

  private final int blockSize;
  private final BlockStore store;
  private final CacheMetadataService service;
  private final FailurePolicy failures;
  private final Executor reports;

  CachedBlocks(int blockSize, BlockStore store, CacheMetadataService service, FailurePolicy failures) {
    this(blockSize, store, service, failures, Runnable::run);
  }

  /** @param reports runs the reports of blocks read ({@link #reportReads}), off the reader's thread outside tests */
  CachedBlocks(int blockSize, BlockStore store, CacheMetadataService service, FailurePolicy failures, Executor reports) {
    this.blockSize = blockSize;
    this.store = requireNonNull(store, "store is null");
    this.service = requireNonNull(service, "service is null");
    this.failures = requireNonNull(failures, "failures is null");
    this.reports = requireNonNull(reports, "reports is null");
  }

  /**
   * Reads {@code span}, the bytes of blocks {@code [first, end)} that {@code status} says are cached:
   * the whole run at once ({@link BlockStore#readRun}); when that fails other than by a corrupt block,
   * block by block, to serve every block it can and stop at the first it cannot.
   *
   * @return null when every block was served; else the blocks to read another way: the failed block
   *     when it was corrupt or unreadable (reported to the service), or every block from it on when its
   *     data file is gone (dropped after the status was read: the rest of the run was in that file too)
   * @throws IOException when a cache read fails in strict mode ({@link FailurePolicy}), or the reader
   *     was interrupted
   */
  Unserved read(ReadSession s, BlockRange status, int first, int end, Span span) throws IOException {
    Path dataFile = s.dataFile(status.dataFile());
    try {
      store.readRun(dataFile, s.version, first, end, status::crc32c, span.position(), span.buffer().duplicate());
      served(s, first, end, span.length());
      return null;
    } catch (CacheCorruptionException e) {
      int bad = e.block();
      served(s, first, bad, span.blocks(first, bad, blockSize).length());
      corrupt(s, e);
      return new Unserved(bad, bad + 1);
    } catch (InterruptedIOException e) {
      throw e;
    } catch (IOException e) {
      return readByBlock(s, dataFile, status, first, end, span);
    }
  }

  /** How a caller reads blocks {@code [first, end)} ({@code span}) the cache did not serve after all. */
  @FunctionalInterface
  interface Otherwise {
    void read(int first, int end, Span span) throws IOException;
  }

  /**
   * Reads {@code span}, blocks {@code [first, end)} that {@code status} says are cached, to the end: the
   * blocks the cache does not serve after all through {@code otherwise} (the status is then forgotten, so
   * the next read asks again), the rest of the run from the cache.
   */
  void readAll(ReadSession s, BlockRange status, int first, int end, Span span, Otherwise otherwise) throws IOException {
    int b = first;
    while (b < end) {
      Unserved unserved = read(s, status, b, end, span.blocks(b, end, blockSize));
      if (unserved == null) {
        return;
      }
      s.recentStatus(null);
      otherwise.read(unserved.first(), unserved.end(), span.blocks(unserved.first(), unserved.end(), blockSize));
      b = unserved.end();
    }
  }

  private Unserved readByBlock(ReadSession s, Path dataFile, BlockRange status, int first, int end, Span span) throws IOException {
    for (int b = first; b < end; b++) {
      Span block = span.blocks(b, b + 1, blockSize);
      try {
        store.read(dataFile, s.version, b, status.crc32c(b), block.position(), block.buffer());
        served(s, b, b + 1, block.length());
        continue;
      } catch (CacheCorruptionException e) {
        corrupt(s, e);
      } catch (InterruptedIOException e) {
        throw e;
      } catch (NoSuchFileException e) {
        // dropped (evicted, invalidated) after its status was read: an expected race, not corruption and not a
        // cache failure, so strict mode does not fail on it; the service checks whether its current file is gone too
        s.stats.add(CacheCounter.FALLBACK_CACHE_READ, 1);
        LOG.debug("Cache file {} of {} is gone (evicted); reading blocks [{}, {}) again", dataFile, s.version.path(), b, end);
        reportCorrupt(s.version, b);
        return new Unserved(b, end);
      } catch (IOException e) {
        s.stats.add(CacheCounter.FALLBACK_CACHE_READ, 1);
        LOG.warn("Reading block {} of {} from cache file {} failed; reading the source", b, s.version.path(), dataFile, e);
        failures.handle(e, e.getMessage());
      }
      return new Unserved(b, b + 1);
    }
    return null;
  }

  /** Counts blocks {@code [first, end)}, {@code bytes} of them, as read from the cache. */
  private void served(ReadSession s, int first, int end, int bytes) {
    if (first == end) {
      return;
    }
    s.stats.add(CacheCounter.HIT_BYTES, bytes);
    s.stats.add(CacheCounter.HIT_BLOCKS, end - first);
    for (int b = first; b < end; b++) {
      int[] due = s.noteCachedRead(b);
      if (due != null) {
        report(s, due);
      }
    }
  }

  private void corrupt(ReadSession s, CacheCorruptionException e) {
    s.stats.add(CacheCounter.CHECKSUM_FAILURES, 1);
    s.stats.add(CacheCounter.FALLBACK_CHECKSUM, 1);
    LOG.warn("{}; re-reading it from the source", e.getMessage());
    // the service re-checks the block before it drops it; strict mode does not fail the read, which the source answers
    reportCorrupt(s.version, e.block());
  }

  /**
   * Reports to the service the blocks {@code s} read from the cache since its last report, for its
   * statistics only, without waiting: a failure (a daemon that predates the call, one that is down, an
   * engine closing) loses the report and nothing else.
   */
  void reportReads(ReadSession s) {
    report(s, s.takeCachedReads());
  }

  private void report(ReadSession s, int[] blocks) {
    if (blocks.length == 0) {
      return;
    }
    try {
      reports.execute(() -> {
        try {
          service.reportReads(s.version, blocks);
        } catch (IOException | RuntimeException e) {
          LOG.debug("Could not report {} blocks read from the cache of {}", blocks.length, s.version, e);
        }
      });
    } catch (RejectedExecutionException e) {
      LOG.debug("Not reporting {} blocks read from the cache of {}: the engine is closing", blocks.length, s.version);
    }
  }

  private void reportCorrupt(ObjectVersion version, int block) {
    try {
      service.reportCorrupt(version, block);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not report corrupt block {} of {}", block, version, e);
    }
  }
}
