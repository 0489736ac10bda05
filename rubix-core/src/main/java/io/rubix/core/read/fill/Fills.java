package io.rubix.core.read.fill;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.fetch.ArrivingBlock;
import io.rubix.core.read.fetch.ChunkFetches;
import io.rubix.core.read.fetch.GrantedRun;
import io.rubix.core.read.fetch.GrantedRuns;
import io.rubix.core.read.fetch.SourceFetches;
import io.rubix.core.read.session.Admission;
import io.rubix.core.read.session.BlockRuns;
import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks fetched into the cache for nobody's read: read-ahead for a sequential stream (started after
 * its read, in the background, best effort: a failure is logged and forgotten) and fills for
 * {@link BlockFiller} (in the caller's thread, chunks in parallel, failures thrown).
 *
 * <p>Design: acquires the blocks from the metadata service and hands the granted runs to
 * {@link SourceFetches}, which fetches, writes and commits them and ends each run. Read-ahead of the
 * blocks the cache declines (not granted, not admitted here without peers, or no answer from the service)
 * goes to {@link SourceReads}, which reads them into the stream's memory: a stream scanning declined bytes
 * reads ahead like one scanning cached bytes. Called from readers' threads (read-ahead) and from the
 * filler's callers; runs chunks on the fetch executor. It may call the metadata service,
 * {@link SourceFetches}, {@link SourceReads} and the admission; never the other read classes.
 */
public final class Fills {
  private static final Logger LOG = LoggerFactory.getLogger(Fills.class);

  private final CacheMetadataService service;
  private final SourceFetches fetches;
  private final Admission admission;
  private final Executor fetchExecutor;
  private final SourceReads declined;
  /** Whether read-ahead reads blocks this node does not admit from the source (there are no peers to read them from). */
  private final boolean notAdmittedFromSource;
  private final FailurePolicy failures;

  /**
   * Fills whose read-ahead reads blocks the cache declines through {@code declined}; blocks this node does
   * not admit too when {@code notAdmittedFromSource} (else their owners' read-ahead reads them).
   */
  public Fills(CacheMetadataService service, SourceFetches fetches, Admission admission, Executor fetchExecutor, SourceReads declined,
      boolean notAdmittedFromSource, FailurePolicy failures) {
    this.service = requireNonNull(service, "service is null");
    this.fetches = requireNonNull(fetches, "fetches is null");
    this.admission = requireNonNull(admission, "admission is null");
    this.fetchExecutor = requireNonNull(fetchExecutor, "fetchExecutor is null");
    this.declined = requireNonNull(declined, "declined is null");
    this.notAdmittedFromSource = notAdmittedFromSource;
    this.failures = requireNonNull(failures, "failures is null");
  }

  /**
   * Starts fetching blocks {@code [first, end)} ahead of the reads that will want them (a stream's
   * read-ahead when {@code readAhead}, else the blocks of a vectored read's group of ranges), one task per
   * chunk; returns without waiting. The blocks granted are fetched into the cache (counted in
   * {@code rubix_readahead_blocks} for read-ahead); the ones the cache declines are read into the stream's memory.
   */
  void fetchAhead(ReadSession s, int first, int end, boolean readAhead) {
    BlockRuns.split(first, end, b -> admission.admits(s, b), (from, to, admitted) -> {
      if (admitted) {
        fetchAheadAdmitted(s, from, to, readAhead);
      } else if (notAdmittedFromSource) {
        s.stats.add(CacheCounter.NON_OWNER_SOURCE_BYTES, readAheadDeclined(s, from, to, readAhead));
      }
    });
  }

  private void fetchAheadAdmitted(ReadSession s, int first, int end, boolean readAhead) {
    BlockRange lease;
    try {
      lease = service.acquire(s.version, first, end);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Read-ahead of {} blocks [{}, {}) into the cache failed", s.version.path(), first, end, e);
      if (failures.fallsBack()) {
        // as the reads would: in strict mode they fail instead, so nothing is read for them
        s.stats.add(CacheCounter.FALLBACK_METADATA, 1);
        readAheadDeclined(s, first, end, readAhead);
      }
      return;
    }
    BlockRuns.split(first, end, b -> declined(lease.state(b)), (from, to, declined) -> {
      if (declined) {
        s.stats.add(CacheCounter.FALLBACK_NO_SPACE, to - from);
        readAheadDeclined(s, from, to, readAhead);
      }
    });
    // nobody waits for read-ahead: each chunk task ends its run, a refused one is given back when granted closes
    try (GrantedRuns granted = fetches.grant(lease, first, end)) {
      for (GrantedRun run : granted.in(first, end)) {
        if (readAhead) {
          s.stats.add(CacheCounter.READAHEAD_BLOCKS, run.end() - run.first());
        }
        try {
          fetchExecutor.execute(() -> {
            try {
              fetches.fetchAndCache(s, run);
            } catch (IOException | RuntimeException e) {
              LOG.debug("Read-ahead of {} blocks [{}, {}) failed", s.version.path(), run.first(), run.end(), e);
            }
          });
          granted.take(run);
        } catch (RejectedExecutionException e) {
          LOG.debug("Read-ahead of {} blocks [{}, {}) refused", s.version.path(), run.first(), run.end(), e);
        }
      }
    }
  }

  /** Whether a lease's answer for a block means the cache does not keep it now (as opposed to granted, cached, or another's fetch). */
  private static boolean declined(BlockState state) {
    return state == BlockState.DENIED || state == BlockState.MISSING;
  }

  /**
   * Starts reading blocks {@code [first, end)}, which the cache declined, into the stream's memory, as a
   * stream's read-ahead when {@code stream} (else a vectored read's group); returns the bytes it started reading.
   */
  private long readAheadDeclined(ReadSession s, int first, int end, boolean stream) {
    int blockSize = fetches.blockSize();
    return declined.readAhead(s, (long) first * blockSize, (long) end * blockSize, stream);
  }

  /**
   * Makes blocks {@code [first, end)} cached without reading them for anyone: fetches the missing
   * blocks nobody is fetching from the source (one read per chunk, chunks in parallel), writes and
   * commits them, and waits up to {@code waitMillis} for blocks another reader (of any JVM using
   * the service) is fetching. Returns the blocks' state afterwards.
   *
   * @throws IOException when the metadata service or the source fails (a {@link StaleVersionException}
   *     when the source no longer has the version)
   */
  BlockRange fill(ReadSession s, int first, int end, long waitMillis) throws IOException {
    BlockRange lease = service.acquire(s.version, first, end);
    return fillGranted(s, lease, fetches.grant(lease, first, end), first, end, waitMillis);
  }

  /**
   * {@link #fill}, started: acquires the blocks in the caller's thread and returns the ones this JVM
   * fetches (for this fill or another) as {@link ArrivingBlock}s, then fetches, writes and commits them
   * and waits for the others in one task on {@code executor}; the fill's future completes as
   * {@link #fill} returns or throws.
   *
   * @throws IOException when the metadata service fails
   * @throws RejectedExecutionException when {@code executor} refuses the task (nothing is then granted)
   */
  StartedFill startFill(ReadSession s, int first, int end, long waitMillis, Executor executor) throws IOException {
    BlockRange lease = service.acquire(s.version, first, end);
    GrantedRuns granted = fetches.grant(lease, first, end);
    ArrivingBlock[] arriving = new ArrivingBlock[end - first];
    for (int b = first; b < end; b++) {
      arriving[b - first] = fetches.arriving(s.version, b);
    }
    FillTask task = new FillTask(() -> fillGranted(s, lease, granted, first, end, waitMillis), granted);
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.discard();
      throw e;
    }
    return new StartedFill(first, arriving, task.done());
  }

  /** Fetches the runs of {@code granted} (which it closes), then waits for the blocks of {@code lease} others fetch. */
  private BlockRange fillGranted(ReadSession s, BlockRange lease, GrantedRuns granted, int first, int end, long waitMillis) throws IOException {
    boolean othersFetching = false;
    for (int b = first; b < end; b++) {
      othersFetching |= lease.state(b) == BlockState.IN_FLIGHT;
    }
    try (granted; ChunkFetches chunks = new ChunkFetches(fetchExecutor)) {
      try {
        List<GrantedRun> runs = granted.in(first, end);
        for (int i = 1; i < runs.size(); i++) {
          GrantedRun run = granted.take(runs.get(i));
          if (!chunks.submit(run, r -> fetches.fetchAndCache(s, r))) {
            run.close();
          }
        }
        if (!runs.isEmpty()) {
          fetches.fetchAndCache(s, granted.take(runs.get(0)));
        }
      } catch (IOException | RuntimeException | Error e) {
        chunks.cancel();
        throw e;
      }
    } catch (IOException e) {
      throw staleFirst(e);
    } catch (RuntimeException e) {
      throw new IOException("Filling blocks [" + first + ", " + end + ") of " + s.version.path() + " failed", e);
    }
    if (othersFetching) {
      try {
        service.awaitInFlight(s.version, first, end, waitMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Interrupted waiting for blocks [" + first + ", " + end + ") of " + s.version.path());
      }
    }
    // counted as read where they are read (CachedBlocks reports them), not here
    return service.status(s.version, first, end, first);
  }

  /** {@code e}, or the {@link StaleVersionException} among its suppressed failures: the one that tells a peer the version is gone. */
  private static IOException staleFirst(IOException e) {
    if (e instanceof StaleVersionException) {
      return e;
    }
    for (Throwable suppressed : e.getSuppressed()) {
      if (suppressed instanceof StaleVersionException stale) {
        return stale;
      }
    }
    return e;
  }
}

