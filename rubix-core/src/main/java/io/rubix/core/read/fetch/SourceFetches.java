package io.rubix.core.read.fetch;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.ArrivingBytes;
import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.HeldBytes;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.BlockStore;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bytes fetched from the source into the cache: blocks an {@code acquire} granted to this JVM are read
 * from the source with one request per {@link GrantedRun} (a chunk), handed to readers of this JVM
 * waiting for them, then written to their data file and committed (or given back). Blocks whose write
 * fails are handed to the stream's {@link HeldBytes} (when it has room), so it does not read them again.
 *
 * <p>Ownership: the sole owner of this JVM's {@link InFlightBuffers}. Only {@link #grant} registers
 * blocks in them (as {@link GrantedRun}s, which end them exactly once: settle or close); others only
 * look at a fetch's bytes through {@link #fetching}. A run passed to a fetch method is ended by it, or
 * handed to the writer executor, which ends it.
 *
 * <p>Threads: called from readers' threads and from chunk tasks on the fetch executor; writes run on the
 * writer executor unless strict mode ({@link FailurePolicy#writesBeforeReturning}) wants their errors in
 * the reader's thread. It may call the session's source, the store, the metadata service (commit and
 * abort, through the runs) and the failure policy; never the other read classes.
 */
public final class SourceFetches {
  private static final Logger LOG = LoggerFactory.getLogger(SourceFetches.class);

  private final int blockSize;
  private final int chunkBlocks;
  private final CacheMetadataService service;
  private final BlockStore store;
  private final Executor writeExecutor;
  private final FailurePolicy failures;
  private final long inFlightWaitMillis;
  private final InFlightBuffers inFlight = new InFlightBuffers();

  public SourceFetches(int blockSize, int chunkBlocks, CacheMetadataService service, BlockStore store, Executor writeExecutor,
      FailurePolicy failures, Duration inFlightWait) {
    if (chunkBlocks < 1) {
      throw new IllegalArgumentException("chunkBlocks must be at least 1: " + chunkBlocks);
    }
    this.blockSize = blockSize;
    this.chunkBlocks = chunkBlocks;
    this.service = requireNonNull(service, "service is null");
    this.store = requireNonNull(store, "store is null");
    this.writeExecutor = requireNonNull(writeExecutor, "writeExecutor is null");
    this.failures = requireNonNull(failures, "failures is null");
    this.inFlightWaitMillis = inFlightWait.toMillis();
  }

  /**
   * The blocks {@code lease} granted within {@code [first, end)}, registered as in flight in this JVM,
   * in runs of at most one chunk. The caller closes it, which gives back every run nobody took.
   */
  public GrantedRuns grant(BlockRange lease, int first, int end) {
    return new GrantedRuns(service, inFlight, lease, first, end, chunkBlocks);
  }

  public int blockSize() {
    return blockSize;
  }

  /** This JVM's fetch of {@code block}: its bytes once read from the source; null when this JVM is not fetching it. */
  public CompletableFuture<ByteBuffer> fetching(ReadSession s, int block) {
    return inFlight.get(s.version, block);
  }

  /** Forgets this JVM's fetches of {@code path} and of the paths under it ({@link InFlightBuffers#forget}): it was written again or deleted. */
  public void forget(String path) {
    inFlight.forget(path);
  }

  /** {@code block} of {@code version} as this JVM's fetch reads it from the source; null when this JVM is not fetching it. */
  public ArrivingBlock arriving(ObjectVersion version, int block) {
    ArrivingBytes run = inFlight.arriving(version, block);
    if (run == null) {
      return null;
    }
    return new ArrivingBlock(run, (block - run.firstBlock()) * blockSize, version.blockLength(block, blockSize));
  }

  /**
   * Copies {@code span}, inside {@code block}, from this JVM's fetch of the block ({@code fetching}) as soon
   * as the span's bytes have arrived (not when the fetch's whole chunk has), waiting up to the in-flight
   * wait timeout; false when that fetch failed or took longer (what it copied is then overwritten by the
   * read that follows).
   */
  public boolean copyFetched(ReadSession s, CompletableFuture<ByteBuffer> fetching, int block, Span span) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(inFlightWaitMillis);
    int offset = (int) (span.position() - (long) block * blockSize);
    ArrivingBytes run = inFlight.arriving(s.version, block);
    try {
      if (run != null && run.firstBlock() <= block) {
        int from = (block - run.firstBlock()) * blockSize + offset;
        int have = 0;
        while (have < from + span.length()) {
          long left = deadline - System.nanoTime();
          int now = left > 0 ? run.await(have, left) : have;
          if (now == have) {
            return false;
          }
          have = now;
        }
        span.buffer().put(0, run.bytes(), from, span.length());
      } else {
        span.buffer().put(0, fetching.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS), offset, span.length());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for block " + block + " of " + s.version.path());
    } catch (IOException | ExecutionException | TimeoutException e) {
      return false;
    }
    s.stats.add(CacheCounter.MISS_BYTES, span.length());
    s.stats.add(CacheCounter.MISS_BLOCKS, 1);
    return true;
  }

  /**
   * Fetches granted {@code runs} (one chunk each, taken from {@code granted}) for a read of {@code span}:
   * the first in this thread, the others through {@code chunks} (in this thread too when it refuses them).
   * The caller closes {@code chunks} before its read returns: they write into {@code span}.
   */
  public void fetchForRead(ReadSession s, GrantedRuns granted, List<GrantedRun> runs, ChunkFetches chunks, Span span) throws IOException {
    for (int i = 1; i < runs.size(); i++) {
      GrantedRun run = granted.take(runs.get(i));
      if (!chunks.submit(run, r -> fetchForRead(s, r, span))) {
        fetchForRead(s, run, span);
      }
    }
    if (!runs.isEmpty()) {
      fetchForRead(s, granted.take(runs.get(0)), span);
    }
  }

  /**
   * Fetches the blocks of {@code run} with one source read, copies the part of them inside {@code span}
   * into it (absolute puts: chunks of one read fill disjoint regions in parallel), then writes and
   * commits them, in the background unless strict mode wants write errors reported. Ends {@code run},
   * or hands it to the writer.
   */
  private void fetchForRead(ReadSession s, GrantedRun run, Span span) throws IOException {
    boolean handedOn = false;
    try {
      byte[] bytes = fetch(s, run);
      long start = (long) run.first() * blockSize;
      long from = Math.max(span.position(), start);
      long to = Math.min(span.end(), start + bytes.length);
      if (from < to) {
        span.range(from, to).put(bytes, (int) (from - start));
        s.stats.add(CacheCounter.MISS_BYTES, to - from);
        s.stats.add(CacheCounter.MISS_BLOCKS, (to - 1) / blockSize - from / blockSize + 1);
      }
      if (failures.writesBeforeReturning()) {
        writeAndCommit(s, run, bytes);
      } else {
        handedOn = writeInBackground(s, run, bytes);
      }
    } finally {
      if (!handedOn) {
        run.close();
      }
    }
  }

  /** Fetches, writes and commits the blocks of {@code run} in this thread, for nobody's read (read-ahead, fills); ends {@code run}. */
  public void fetchAndCache(ReadSession s, GrantedRun run) throws IOException {
    try (run) {
      writeAndCommit(s, run, fetch(s, run));
    }
  }

  /** Reads the blocks of {@code run} from the source with one request and hands them to readers of this JVM waiting for them. */
  private byte[] fetch(ReadSession s, GrantedRun run) throws IOException {
    long start = (long) run.first() * blockSize;
    int length = (int) (Math.min((long) run.end() * blockSize, s.version.length()) - start);
    byte[] bytes = new byte[length];
    ArrivingBytes arriving = run.arriving();
    arriving.start(bytes);
    s.source.readFully(start, bytes, 0, length, arriving::arrived);
    run.publish(bytes, blockSize);
    s.stats.add(CacheCounter.SOURCE_REQUESTS, 1);
    s.stats.add(CacheCounter.SOURCE_BYTES, length);
    return bytes;
  }

  /** Writes and commits {@code run} on the writer executor, which then owns it; false when the executor refused (the caller still owns it). */
  private boolean writeInBackground(ReadSession s, GrantedRun run, byte[] bytes) {
    try {
      writeExecutor.execute(() -> {
        try (run) {
          writeAndCommit(s, run, bytes);
        } catch (IOException e) {
          // counted and logged by writeAndCommit; the caller already has its bytes
        }
      });
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /**
   * Writes the blocks of {@code run} to its data file and settles it: commits what was written, gives back
   * the rest, and a block the store says must not be committed ({@link BlockStore#committable}).
   */
  private void writeAndCommit(ReadSession s, GrantedRun run, byte[] bytes) throws IOException {
    int first = run.first();
    int end = run.end();
    Path dataFile = run.dataFile();
    int[] crcs = new int[end - first];
    int written = 0;
    run.writing();
    try {
      for (int b = first; b < end; b++) {
        int offset = (b - first) * blockSize;
        int blockLength = Math.min(blockSize, bytes.length - offset);
        crcs[written] = store.write(dataFile, s.version, b, ByteBuffer.wrap(bytes, offset, blockLength));
        if (!store.committable(crcs[written], ByteBuffer.wrap(bytes, offset, blockLength))) {
          LOG.warn("Block {} of {} not cached: its CRC32C is that of zeros but its bytes are not zeros", b, s.version.path());
          run.withhold(b);
        }
        written++;
      }
      s.stats.add(CacheCounter.CACHE_WRITE_BYTES, bytes.length);
    } catch (NoSuchFileException e) {
      // the object was evicted or invalidated while its blocks were fetched (the metadata service
      // deleted its file; writers never create one): nothing to write into, not a failure
      LOG.debug("Blocks [{}, {}) of {} not cached: {} was evicted while they were fetched", first, end, s.version.path(), dataFile);
      settleQuietly(s, run, 0, crcs, written > 0);
      return;
    } catch (IOException | RuntimeException e) {
      s.stats.add(CacheCounter.FALLBACK_CACHE_WRITE, 1);
      LOG.warn("Writing blocks [{}, {}) of {} to cache file {} failed; they stay uncached", first, end, s.version.path(), dataFile, e);
      if (failures.fallsBack()) {
        // the stream's next reads take them from memory (SourceReads) instead of reading them from the source again
        s.held().keep((long) first * blockSize, bytes);
      }
      settleQuietly(s, run, written, crcs, true);
      failures.handle(e, "Writing blocks [" + first + ", " + end + ") of " + s.version.path() + " to cache file " + dataFile + " failed");
      return;
    }
    settleQuietly(s, run, written, crcs, false);
  }

  private void settleQuietly(ReadSession s, GrantedRun run, int written, int[] crcs, boolean restWritten) throws IOException {
    try {
      run.settle(written, crcs, restWritten);
    } catch (IOException | RuntimeException e) {
      failures.metadataFailure(s, e);
    }
  }
}
