package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.read.fetch.ChunkFetches;
import io.rubix.core.read.fetch.GrantedRun;
import io.rubix.core.read.fetch.GrantedRuns;
import io.rubix.core.read.fetch.SourceFetches;
import io.rubix.core.read.fill.BlockFiller;
import io.rubix.core.read.fill.Fills;
import io.rubix.core.read.fill.StatusWindows;
import io.rubix.core.read.peer.OwnedElsewhere;
import io.rubix.core.read.peer.PeerBlocks;
import io.rubix.core.read.session.Admission;
import io.rubix.core.read.session.BlockAdmission;
import io.rubix.core.read.session.BlockRuns;
import io.rubix.core.read.session.FailurePolicy;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.session.UncachedMemory;
import io.rubix.core.read.uncached.SourceReads;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.StreamStats;
import io.rubix.core.store.BlockStore;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The read path: serves a byte range of an object version from cached blocks where it can, fetches
 * missing blocks from the source (one ranged read per run of adjacent missing blocks, split into
 * chunks fetched in parallel), writes them to the cache and publishes them, and reads ahead for
 * sequential readers.
 *
 * <p>Design: the metadata service is the only coordinator. {@code status} says which blocks are
 * cached; {@code acquire} grants missing blocks to exactly one fetcher (in this JVM or another), so a
 * block crosses the network once; others wait for it or read the source. Any cache-side failure falls
 * back to a source read of just the caller's bytes and is counted; strict mode rethrows it instead
 * ({@link FailurePolicy}).
 *
 * <p>This class plans and dispatches: it asks the service, splits a read into runs of blocks in the same
 * state and hands each run to the class that serves that source of bytes, and it alone decides what
 * to do with the blocks a part could not serve. The parts only point down (none calls back here); a part
 * named with a package lives in that sub-package, over the base package {@code session}:
 * <ul>
 *   <li>{@link CachedBlocks}: blocks the cache holds; returns the ones it could not serve;
 *   <li>{@link InFlightReads}: blocks a lease names cached or being fetched by another reader (waited for);
 *   <li>{@code fetch}, {@link SourceFetches}: granted blocks fetched from the source, written and committed; the
 *       sole owner of this JVM's in-flight buffers ({@link GrantedRuns}/{@link GrantedRun} end them);
 *   <li>{@code peer}, {@link OwnedElsewhere}: blocks other nodes own, from those nodes ({@link PeerBlocks}) or,
 *       without peer reads, from the source;
 *   <li>{@code fill}, {@link StatusWindows}: the status window around a read, and what it starts fetching ahead
 *       of it (read-ahead, vectored groups) through {@link Fills}, fetched for nobody's read;
 *   <li>{@link TailReads}: objects' tails (footers) from memory;
 *   <li>{@code uncached}, {@link SourceReads}: bytes the cache does not serve, from the source as a plain stream
 *       with read-ahead would read them (held in the stream's memory), the fallback of them all.
 * </ul>
 *
 * <p>Threads: any number of readers at once, each in its own thread; a read returns or throws only
 * after every chunk writing into its buffer ended ({@link ChunkFetches}). Of a {@link ReadSession} this
 * class owns {@code recentStatus}.
 *
 * <p>Why it is over 300 lines: it is one decision tree (status, then cached or missing, then this JVM's
 * fetch or an acquire, then admitted or owned elsewhere, then the lease's answer per block), kept in one
 * file so that a reader follows a read from top to bottom; everything that touches bytes is in the parts.
 */
public final class BlockReader {
  private final int blockSize;
  private final int chunkBlocks;
  private final int readAheadMaxBlocks;
  private final CacheMetadataService service;
  private final Executor fetchExecutor;
  private final FailurePolicy failures;
  private final FetchExtent extent;
  private final TailReads tails;
  private final Admission admission;
  private final CachedBlocks cached;
  private final SourceFetches fetches;
  private final StatusWindows windows;
  private final BlockFiller filler;
  private final SourceReads sourceReads;
  /** Cached and in-flight blocks of a lease: from the cache, else the source. */
  private final InFlightReads leased;
  private final UncachedMemory uncachedMemory;
  /** Blocks other nodes own: from those nodes, or from the source without peer reads. */
  private final OwnedElsewhere elsewhere;

  public BlockReader(CacheConfig config, CacheMetadataService service, BlockStore store, Executor fetchExecutor, Executor writeExecutor) {
    this(config, service, store, fetchExecutor, writeExecutor, BlockAdmission.ALL);
  }

  public BlockReader(CacheConfig config, CacheMetadataService service, BlockStore store, Executor fetchExecutor, Executor writeExecutor,
      BlockAdmission admission) {
    this(config, service, store, fetchExecutor, writeExecutor, admission, null, Runnable::run);
  }

  /**
   * A reader that asks {@code peers} (when not null) first for the blocks {@code admission} does not
   * admit, and reports the blocks it reads from the cache through {@code reportExecutor} (the reader's own
   * thread for an in-process service; another for a daemon's, whose call is a round trip).
   */
  public BlockReader(CacheConfig config, CacheMetadataService service, BlockStore store, Executor fetchExecutor, Executor writeExecutor,
      BlockAdmission admission, PeerReader peers, Executor reportExecutor) {
    requireNonNull(config, "config is null");
    requireNonNull(admission, "admission is null");
    this.service = requireNonNull(service, "service is null");
    requireNonNull(store, "store is null");
    this.fetchExecutor = requireNonNull(fetchExecutor, "fetchExecutor is null");
    requireNonNull(writeExecutor, "writeExecutor is null");
    this.blockSize = config.blockSize();
    if (service.blockSize() != blockSize) {
      throw new IllegalArgumentException("Block size " + blockSize + " differs from the cache metadata service's " + service.blockSize());
    }
    this.chunkBlocks = (int) Math.max(1, Math.min(CacheMetadataService.MAX_BLOCKS_PER_CALL, config.fetchChunkSize() / blockSize));
    this.readAheadMaxBlocks = (int) (config.readAheadMax() / blockSize);
    this.failures = FailurePolicy.of(config);
    this.extent = new FetchExtent(blockSize, config.fetchTailSize(), config.fetchWholeMax());
    this.admission = new Admission(admission, blockSize);
    this.cached = new CachedBlocks(blockSize, store, service, failures, reportExecutor);
    this.tails = new TailReads(blockSize, new TailMemory(config.fetchTailSize(), config.tailMemorySize()), service, cached);
    this.fetches = new SourceFetches(blockSize, chunkBlocks, service, store, writeExecutor, failures, config.inFlightWaitTimeout());
    this.sourceReads = new SourceReads(blockSize, chunkBlocks, fetchExecutor);
    this.leased = new InFlightReads(blockSize, config.inFlightPolicy(), config.inFlightWaitTimeout().toMillis(), service, failures,
        cached, sourceReads);
    this.uncachedMemory = new UncachedMemory(config.uncachedReadAheadMemory());
    this.elsewhere = peers == null ? OwnedElsewhere.FROM_SOURCE : new PeerBlocks(peers, blockSize, chunkBlocks, this.admission, fetchExecutor);
    // blocks this node does not admit are read ahead from their owners when there are peers, else from the source
    Fills fills = new Fills(service, fetches, this.admission, fetchExecutor, sourceReads, !elsewhere.fromOwners(), failures);
    this.filler = new BlockFiller(fills, fetches, blockSize);
    this.windows = new StatusWindows(blockSize, service, fills);
  }

  int blockSize() {
    return blockSize;
  }

  /** A filler that fetches into this reader's cache. */
  public BlockFiller filler() {
    return filler;
  }

  /**
   * Drops what this reader keeps in memory of any version of {@code path} and of the paths under it, the
   * tails and the fetches in flight, so no later read is served from them: it was written again, deleted
   * or renamed.
   */
  public void forget(String path) {
    tails.forget(path);
    fetches.forget(path);
  }

  ReadSession newSession(ObjectVersion version, Source source, StreamStats stats) {
    return uncachedMemory.track(new ReadSession(version, source, stats, blockSize, uncachedMemory));
  }

  /** Bytes the streams of this reader hold because the cache declined them (see {@link SourceReads}). */
  long heldBytes() {
    return uncachedMemory.reserved();
  }

  /** Forgets what the session remembers between reads (a stream's {@code unbuffer}): the next read asks again. */
  void unbuffer(ReadSession s) {
    cached.reportReads(s);
    s.recentStatus(null);
    sourceReads.forget(s);
    elsewhere.forget(s);
  }

  /**
   * A stream read (stateful or positioned): reads up to {@code dst.remaining()} bytes at {@code position}
   * and returns how many, or -1 at the end of the object; on return {@code dst}'s position has advanced by
   * that count. Reads that continue each other are the evidence read-ahead follows ({@link ReadSession#noteRead}).
   */
  int read(ReadSession s, long position, ByteBuffer dst) throws IOException {
    return read(s, position, dst, true);
  }

  /** The stream of {@code s} is closed: reports what it read from the cache. */
  void close(ReadSession s) {
    cached.reportReads(s);
    sourceReads.forget(s);
  }

  /**
   * A range of a vectored read: as {@link #read(ReadSession, long, ByteBuffer)}, but it neither reads
   * ahead nor counts as evidence for it. The caller named every range it needs (a columnar reader's
   * column chunks, often adjacent), so what lies beyond them is no more likely to be read than anything else.
   */
  int readDeclared(ReadSession s, long position, ByteBuffer dst) throws IOException {
    return read(s, position, dst, false);
  }

  /**
   * Before a vectored read's ranges are read in parallel: starts fetching the blocks of the group of them
   * that spans {@code [from, to)}, one ranged read per run of missing blocks ({@link StatusWindows#fetchGroup}).
   */
  void fetchGroup(ReadSession s, long from, long to) {
    windows.fetchGroup(s, from, to);
  }

  private int read(ReadSession s, long position, ByteBuffer dst, boolean stream) throws IOException {
    long length = s.version.length();
    if (position < 0) {
      throw new EOFException("Negative position " + position + " in " + s.version.path());
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    if (position >= length) {
      return -1;
    }
    int n = (int) Math.min(dst.remaining(), length - position);
    boolean inTail = tails.inTail(s, position);
    if (inTail && tails.read(s, position, n, dst)) {
      dst.position(dst.position() + n);
      return n;
    }
    int[] readAhead = stream ? s.noteRead(position, n, blockSize, readAheadMaxBlocks, chunkBlocks) : null;
    if (readAhead != null) {
      windows.readAhead(s, block(position), block(position + n - 1) + 1, readAhead[0], readAhead[1]);
    }
    if (stream && !admission.all()) {
      elsewhere.readAhead(s, block(position), block(position + n - 1));
    }
    Span span = new Span(position, dst.slice(dst.position(), n));
    if (!s.held().isEmpty() && sourceReads.readHeld(s, span)) {
      // bytes the cache declined, which this stream read ahead: no metadata call, no request
      dst.position(dst.position() + n);
      return n;
    }
    // one metadata call names at most MAX_BLOCKS_PER_CALL blocks (the status window is at most that)
    long windowBytes = (long) CacheMetadataService.MAX_BLOCKS_PER_CALL * blockSize;
    for (long at = position; at < span.end(); ) {
      long windowEnd = Math.min(span.end(), (at / blockSize) * blockSize + windowBytes);
      readRange(s, span.range(at, windowEnd));
      at = windowEnd;
    }
    if (inTail) {
      // the tail was not in memory when this read began
      tails.keep(s, position, n, dst);
    }
    dst.position(dst.position() + n);
    return n;
  }

  private void readRange(ReadSession s, Span target) throws IOException {
    int first = target.firstBlock(blockSize);
    int end = target.endBlock(blockSize);
    BlockRange status = s.recentStatus();
    if (status == null || !status.covers(first, end) || !admission.cachedOrOwnedElsewhere(s, status, first, end, elsewhere.fromOwners())) {
      try {
        // one answer for the blocks ahead too: a warm sequential stream then asks once per status window
        status = windows.statusFrom(s, first, end);
      } catch (IOException | RuntimeException e) {
        failures.metadataFailure(s, e);
        elsewhere.readWithoutMetadata(s, first, end, target, sourceReads);
        return;
      }
      s.recentStatus(status);
    }
    BlockRange known = status;
    BlockRuns.split(first, end, b -> known.state(b) == BlockState.CACHED, (from, to, cached) -> {
      Span run = target.blocks(from, to, blockSize);
      if (cached) {
        readCached(s, known, from, to, run);
      } else {
        readMissing(s, from, to, run);
      }
    });
  }

  /**
   * Reads blocks {@code [first, end)} the status says are cached; the blocks the cache does not serve
   * after all are fetched as missing blocks (a lease's cached blocks are read by {@link InFlightReads}).
   */
  private void readCached(ReadSession s, BlockRange status, int first, int end, Span span) throws IOException {
    cached.readAll(s, status, first, end, span, (from, to, unserved) -> readMissing(s, from, to, unserved));
  }


  /**
   * Reads blocks {@code [first, end)} that were not cached: blocks this JVM is already fetching come
   * from the fetch's buffer; the others are acquired from the metadata service.
   */
  private void readMissing(ReadSession s, int first, int end, Span span) throws IOException {
    BlockRuns.split(first, end, b -> fetches.fetching(s, b) != null, (from, to, fetching) -> {
      if (!fetching) {
        acquireAndRead(s, from, to, span.blocks(from, to, blockSize));
        return;
      }
      for (int b = from; b < to; b++) {
        Span block = span.blocks(b, b + 1, blockSize);
        CompletableFuture<ByteBuffer> fetch = fetches.fetching(s, b);
        if (fetch == null || !fetches.copyFetched(s, fetch, b, block)) {
          acquireAndRead(s, b, b + 1, block);
        }
      }
    });
  }

  /** Acquires and reads blocks {@code [first, end)}; blocks this node does not admit are read from their owners or the source, uncached. */
  private void acquireAndRead(ReadSession s, int first, int end, Span span) throws IOException {
    acquireAndRead(s, first, end, span, true);
  }

  /**
   * {@link #acquireAndRead(ReadSession, int, int, Span)}, asking owners for blocks this node does not admit
   * only when {@code askOwners}. The blocks no owner served come back here without asking again: when
   * their owner failed and this node took its place in the ring, they are fetched into this node's cache
   * (so they cross from the source once, not once now and again when this node reads them as their owner).
   */
  private void acquireAndRead(ReadSession s, int first, int end, Span span, boolean askOwners) throws IOException {
    if (admission.all()) {
      acquireAdmittedAndRead(s, first, end, span);
      return;
    }
    BlockRuns.split(first, end, b -> admission.admits(s, b), (from, to, admitted) -> {
      Span run = span.blocks(from, to, blockSize);
      if (admitted) {
        acquireAdmittedAndRead(s, from, to, run);
      } else if (askOwners) {
        elsewhere.read(s, from, to, run, (unservedSession, gapFirst, gapEnd, gap) -> acquireAndRead(unservedSession, gapFirst, gapEnd, gap, false));
      } else {
        readNotOwned(s, run);
      }
    });
  }

  /**
   * Acquires blocks {@code [first, end)}, which this node admits, with the blocks the {@link FetchExtent}
   * adds around them, and reads the caller's: granted blocks are fetched (the added ones in the same
   * requests, cached for nobody's read), and for the others the lease's answer decides, for the caller's
   * blocks only.
   */
  private void acquireAdmittedAndRead(ReadSession s, int first, int end, Span span) throws IOException {
    // the extent, cut to the blocks next to the caller's that this node caches
    int lowest = extent.from(s.version.length(), first, end);
    int highest = extent.to(s.version.length(), first, end);
    int from = first;
    while (from > lowest && admission.admits(s, from - 1)) {
      from--;
    }
    int to = end;
    while (to < highest && admission.admits(s, to)) {
      to++;
    }
    if (to - from > CacheMetadataService.MAX_BLOCKS_PER_CALL) {
      from = first;
      to = end;
    }
    BlockRange lease;
    try {
      lease = service.acquire(s.version, from, to);
    } catch (IOException | RuntimeException e) {
      failures.metadataFailure(s, e);
      sourceReads.read(s, span);
      return;
    }
    // closed in reverse order: first wait for every chunk writing into span, then give back the grants nobody fetched
    try (GrantedRuns granted = fetches.grant(lease, from, to); ChunkFetches chunks = new ChunkFetches(fetchExecutor)) {
      try {
        BlockRuns.byKey(from, to, b -> lease.state(b).code(), (runFirst, runEnd, code) -> {
          BlockState state = lease.state(runFirst);
          int callerFirst = Math.max(runFirst, first);
          int callerEnd = Math.min(runEnd, end);
          if (state == BlockState.GRANTED) {
            // fetchForRead copies into span only the bytes inside it
            s.stats.add(CacheCounter.EXTENT_BLOCKS, (runEnd - runFirst) - Math.max(0, callerEnd - callerFirst));
            fetches.fetchForRead(s, granted, granted.in(runFirst, runEnd), chunks, span);
          } else if (callerFirst < callerEnd) {
            Span run = span.blocks(callerFirst, callerEnd, blockSize);
            switch (state) {
              case CACHED -> leased.readCached(s, lease, callerFirst, callerEnd, run);
              case IN_FLIGHT -> leased.read(s, callerFirst, callerEnd, run);
              case DENIED, MISSING -> {
                s.stats.add(CacheCounter.FALLBACK_NO_SPACE, callerEnd - callerFirst);
                sourceReads.read(s, run);
              }
              case GRANTED -> throw new AssertionError("handled above");
            }
          }
        });
      } catch (IOException | RuntimeException | Error e) {
        chunks.cancel();
        throw e;
      }
    }
  }


  /** Reads {@code span}, bytes of blocks another node owns and no owner served, from the source, uncached. */
  private void readNotOwned(ReadSession s, Span span) throws IOException {
    sourceReads.read(s, span);
    s.stats.add(CacheCounter.NON_OWNER_SOURCE_BYTES, span.length());
  }

  private int block(long position) {
    return (int) (position / blockSize);
  }
}
