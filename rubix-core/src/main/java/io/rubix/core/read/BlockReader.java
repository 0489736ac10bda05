package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.client.BookKeeperUnavailableException;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.InFlightPolicy;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.StreamStats;
import io.rubix.core.store.BlockStore;
import io.rubix.core.store.CacheCorruptionException;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * The read path: serves a byte range of an object version from cached blocks where it can, fetches
 * missing blocks from the source (one ranged read per run of adjacent missing blocks, split into
 * chunks fetched in parallel), writes them to the cache and publishes them, and reads ahead for
 * sequential readers.
 *
 * <p>Design: the metadata service is the only coordinator. {@code status} says which blocks are
 * cached; {@code acquire} grants missing blocks to exactly one fetcher (in this JVM or another), so a
 * block crosses the network once; others wait for it or read the source. The caller's bytes are
 * copied out of the fetched buffer before the buffer is written to the cache (on the writer
 * executor, unless strict mode wants write errors reported). Any cache-side failure falls back to a
 * source read of just the caller's bytes and is counted; strict mode rethrows it instead.
 *
 * <p>Ownership of grants: the blocks an {@code acquire} grants become {@link GrantedRun}s (one per
 * chunk) held by a {@link GrantedRuns}; a fetch takes a run and ends it (commit what was written,
 * give back the rest) or hands it to the writer, which ends it. Try-with-resources closes whatever
 * nobody took, so a read that fails in any run leaves no block in flight until its lease expires.
 * The chunks one read fetches in parallel are a {@link ChunkFetches}, waited for before the read
 * returns or throws: nothing writes into a caller's buffer after the call is over.
 */
public final class BlockReader {
  private static final Logger LOG = LoggerFactory.getLogger(BlockReader.class);
  /** Blocks a status call covers beyond the read that needs it. */
  private static final int STATUS_WINDOW = 64;

  private final CacheConfig config;
  private final FailurePolicy failures;
  private final int blockSize;
  private final int chunkBlocks;
  private final int readAheadMaxBlocks;
  private final CacheMetadataService service;
  private final BlockStore store;
  private final Executor fetchExecutor;
  private final Executor writeExecutor;
  private final InFlightBuffers inFlight = new InFlightBuffers();
  private final BlockAdmission admission;
  /** {@code admission.admitsAll()}, asked once. */
  private final boolean admitsAll;
  private final PeerReader peers;
  /** Peer transfers in flight in this JVM, or null without peer reads. */
  private final PeerTransfers transfers;
  private final int peerReadAheadBlocks;

  public BlockReader(CacheConfig config, CacheMetadataService service, BlockStore store, Executor fetchExecutor, Executor writeExecutor) {
    this(config, service, store, fetchExecutor, writeExecutor, BlockAdmission.ALL);
  }

  public BlockReader(CacheConfig config, CacheMetadataService service, BlockStore store, Executor fetchExecutor, Executor writeExecutor,
      BlockAdmission admission) {
    this(config, service, store, fetchExecutor, writeExecutor, admission, null);
  }

  /** A reader that asks {@code peers} (when not null) first for the blocks {@code admission} does not admit. */
  public BlockReader(CacheConfig config, CacheMetadataService service, BlockStore store, Executor fetchExecutor, Executor writeExecutor,
      BlockAdmission admission, PeerReader peers) {
    this.peers = peers;
    this.transfers = peers == null ? null : new PeerTransfers(peers);
    this.admission = requireNonNull(admission, "admission is null");
    this.admitsAll = admission.admitsAll();
    this.config = requireNonNull(config, "config is null");
    this.failures = FailurePolicy.of(config);
    this.service = requireNonNull(service, "service is null");
    this.store = requireNonNull(store, "store is null");
    this.fetchExecutor = requireNonNull(fetchExecutor, "fetchExecutor is null");
    this.writeExecutor = requireNonNull(writeExecutor, "writeExecutor is null");
    this.blockSize = config.blockSize();
    if (service.blockSize() != blockSize) {
      throw new IllegalArgumentException("Block size " + blockSize + " differs from the cache metadata service's " + service.blockSize());
    }
    this.chunkBlocks = (int) Math.max(1, Math.min(CacheMetadataService.MAX_BLOCKS_PER_CALL, config.fetchChunkSize() / blockSize));
    this.readAheadMaxBlocks = (int) (config.readAheadMax() / blockSize);
    this.peerReadAheadBlocks = peers == null ? 0 : (int) Math.min(Integer.MAX_VALUE, peers.readAheadBytes() / blockSize);
  }

  /** A filler that fetches into this reader's cache. */
  public BlockFiller filler() {
    return new BlockFiller(this);
  }

  ReadSession newSession(ObjectVersion version, Source source, StreamStats stats) {
    return new ReadSession(version, source, stats, blockSize);
  }

  /**
   * Reads up to {@code dst.remaining()} bytes at {@code position}; returns how many, or -1 at the end of
   * the object. On return {@code dst}'s position has advanced by that count.
   */
  int read(ReadSession s, long position, ByteBuffer dst) throws IOException {
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
    int[] readAhead = s.noteRead(position, n, blockSize, readAheadMaxBlocks, chunkBlocks);
    if (readAhead != null) {
      readAhead(s, readAhead[0], readAhead[1]);
    }
    if (transfers != null && !admitsAll) {
      int[] peerAhead = s.notePeerRead(block(position), block(position + n - 1), peerReadAheadBlocks, chunkBlocks);
      if (peerAhead != null) {
        peerReadAhead(s, peerAhead[0], peerAhead[1]);
      }
    }
    // one metadata call names at most MAX_BLOCKS_PER_CALL blocks (STATUS_WINDOW is far below it)
    long windowBytes = (long) CacheMetadataService.MAX_BLOCKS_PER_CALL * blockSize;
    for (int done = 0; done < n; ) {
      long at = position + done;
      int window = (int) Math.min(n - done, (at / blockSize) * blockSize + windowBytes - at);
      readRange(s, at, dst.slice(dst.position() + done, window));
      done += window;
    }
    dst.position(dst.position() + n);
    return n;
  }

  private void readRange(ReadSession s, long position, ByteBuffer target) throws IOException {
    int n = target.remaining();
    int first = block(position);
    int end = block(position + n - 1) + 1;
    BlockRange status = s.recentStatus;
    if (status == null || !status.covers(first, end) || !cachedOrOwnedElsewhere(s, status, first, end)) {
      try {
        // one answer for the blocks ahead too: a warm sequential stream then asks once per STATUS_WINDOW blocks
        status = service.status(s.version, first, Math.max(end, Math.min(s.blockCount, first + STATUS_WINDOW)));
      } catch (IOException | RuntimeException e) {
        metadataFailure(s, e);
        readSource(s, position, target);
        return;
      }
      s.recentStatus = status;
    }
    int b = first;
    while (b < end) {
      boolean cached = status.state(b) == BlockState.CACHED;
      int runEnd = b + 1;
      while (runEnd < end && (status.state(runEnd) == BlockState.CACHED) == cached) {
        runEnd++;
      }
      long from = Math.max(position, (long) b * blockSize);
      long to = Math.min(position + n, (long) runEnd * blockSize);
      ByteBuffer part = target.slice((int) (from - position), (int) (to - from));
      if (cached) {
        readCachedRun(s, status, b, runEnd, from, part, true);
      } else {
        readMissingRun(s, b, runEnd, from, part);
      }
      b = runEnd;
    }
  }

  /**
   * Whether a recent status still answers a read of {@code [first, end)}: each block is cached, or
   * is not cached and not admitted here (this node never caches it, so asking again would tell
   * nothing new: a stream reading splits other nodes own asks its BookKeeper once per window, not per read).
   */
  private boolean cachedOrOwnedElsewhere(ReadSession s, BlockRange status, int first, int end) {
    if (status.allCached(first, end)) {
      return true;
    }
    if (transfers == null || admitsAll) {
      return false;
    }
    for (int b = first; b < end; b++) {
      if (status.state(b) != BlockState.CACHED && (status.state(b) != BlockState.MISSING || admits(s, b))) {
        return false;
      }
    }
    return true;
  }

  /** Reads blocks {@code [first, end)} the status says are cached; a block that fails is re-read (and re-fetched when {@code refetch}). */
  private void readCachedRun(ReadSession s, BlockRange status, int first, int end, long position, ByteBuffer part, boolean refetch) throws IOException {
    Path dataFile = Path.of(status.dataFile());
    for (int b = first; b < end; b++) {
      long from = Math.max(position, (long) b * blockSize);
      long to = Math.min(position + part.remaining(), (long) (b + 1) * blockSize);
      ByteBuffer slice = part.slice((int) (from - position), (int) (to - from));
      try {
        store.read(dataFile, s.version, b, status.crc32c(b), from, slice);
        s.stats.add(CacheCounter.HIT_BYTES, to - from);
        s.stats.add(CacheCounter.HIT_BLOCKS, 1);
        continue;
      } catch (CacheCorruptionException e) {
        s.stats.add(CacheCounter.CHECKSUM_FAILURES, 1);
        s.stats.add(CacheCounter.FALLBACK_CHECKSUM, 1);
        LOG.warn("{}; re-reading it from the source", e.getMessage());
        // the service re-checks the block before it drops it; strict mode does not fail the read, which the source answers
        reportCorrupt(s.version, b);
      } catch (InterruptedIOException e) {
        throw e;
      } catch (NoSuchFileException e) {
        // dropped (evicted, invalidated) after its status was read: an expected race, not corruption and not a
        // cache failure, so strict mode does not fail on it; the service checks whether its current file is gone too.
        // The rest of the run was in the same file: it is planned again, as one run
        s.stats.add(CacheCounter.FALLBACK_CACHE_READ, 1);
        LOG.debug("Cache file {} of {} is gone (evicted); reading blocks [{}, {}) again", dataFile, s.version.path(), b, end);
        reportCorrupt(s.version, b);
        s.recentStatus = null;
        ByteBuffer rest = part.slice((int) (from - position), (int) (position + part.remaining() - from));
        if (refetch) {
          readMissingRun(s, b, end, from, rest);
        } else {
          readSource(s, from, rest);
        }
        return;
      } catch (IOException e) {
        s.stats.add(CacheCounter.FALLBACK_CACHE_READ, 1);
        LOG.warn("Reading block {} of {} from cache file {} failed; reading the source", b, s.version.path(), dataFile, e);
        failures.handle(e, e.getMessage());
      }
      s.recentStatus = null;
      slice = part.slice((int) (from - position), (int) (to - from));
      if (refetch) {
        readMissingRun(s, b, b + 1, from, slice);
      } else {
        readSource(s, from, slice);
      }
    }
  }

  /**
   * Reads blocks {@code [first, end)} that were not cached: blocks this JVM is already fetching come
   * from the fetch's buffer; the others are acquired from the metadata service.
   */
  private void readMissingRun(ReadSession s, int first, int end, long position, ByteBuffer part) throws IOException {
    int b = first;
    while (b < end) {
      long from = Math.max(position, (long) b * blockSize);
      CompletableFuture<ByteBuffer> fetching = inFlight.get(s.version, b);
      if (fetching != null) {
        long to = Math.min(position + part.remaining(), (long) (b + 1) * blockSize);
        ByteBuffer slice = part.slice((int) (from - position), (int) (to - from));
        if (!readFetching(s, fetching, b, from, slice)) {
          acquireAndRead(s, b, b + 1, from, part.slice((int) (from - position), (int) (to - from)));
        }
        b++;
        continue;
      }
      int runEnd = b + 1;
      while (runEnd < end && inFlight.get(s.version, runEnd) == null) {
        runEnd++;
      }
      long to = Math.min(position + part.remaining(), (long) runEnd * blockSize);
      acquireAndRead(s, b, runEnd, from, part.slice((int) (from - position), (int) (to - from)));
      b = runEnd;
    }
  }

  /** Copies the part of {@code block} inside {@code [position, ...)} from this JVM's fetch of it; false when that fetch failed. */
  private boolean readFetching(ReadSession s, CompletableFuture<ByteBuffer> fetching, int block, long position, ByteBuffer slice) throws IOException {
    ByteBuffer bytes;
    try {
      bytes = fetching.get(config.inFlightWaitTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for block " + block + " of " + s.version.path());
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
    int offset = (int) (position - (long) block * blockSize);
    slice.put(slice.position(), bytes, offset, slice.remaining());
    s.stats.add(CacheCounter.MISS_BYTES, slice.remaining());
    s.stats.add(CacheCounter.MISS_BLOCKS, 1);
    return true;
  }

  /** Acquires and reads blocks {@code [first, end)}; blocks this node does not admit are read from the source, uncached. */
  private void acquireAndRead(ReadSession s, int first, int end, long position, ByteBuffer part) throws IOException {
    if (admitsAll) {
      acquireAdmittedAndRead(s, first, end, position, part);
      return;
    }
    int b = first;
    while (b < end) {
      boolean admitted = admits(s, b);
      int runEnd = b + 1;
      while (runEnd < end && admits(s, runEnd) == admitted) {
        runEnd++;
      }
      long from = Math.max(position, (long) b * blockSize);
      long to = Math.min(position + part.remaining(), (long) runEnd * blockSize);
      ByteBuffer slice = part.slice((int) (from - position), (int) (to - from));
      if (admitted) {
        acquireAdmittedAndRead(s, b, runEnd, from, slice);
      } else {
        readNotAdmitted(s, b, runEnd, from, slice);
      }
      b = runEnd;
    }
  }

  /**
   * Reads blocks {@code [first, end)} this node does not cache: from their owners when peer reads are
   * on (taking blocks this stream read ahead or another thread is receiving, else asking the owners
   * one chunk at a time), and the blocks no owner serves from the source.
   */
  private void readNotAdmitted(ReadSession s, int first, int end, long position, ByteBuffer part) throws IOException {
    int length = part.remaining();
    if (transfers == null) {
      readSource(s, position, part);
      s.stats.add(CacheCounter.NON_OWNER_SOURCE_BYTES, length);
      return;
    }
    long limit = position + length;
    long sourceFrom = -1;
    long peerBytes = 0;
    long sourceBytes = 0;
    int b = first;
    while (b < end) {
      List<PeerReader.PeerBlock> received = new ArrayList<>();
      CompletableFuture<PeerReader.PeerBlock> known = s.peerBlock(b);
      boolean coalesced = false;
      if (known == null) {
        known = transfers.inFlight(s.version, b);
        coalesced = known != null;
      }
      int next;
      if (known != null) {
        PeerReader.PeerBlock block = transfers.await(known, s.version, b);
        received.add(block);
        if (coalesced && block != null) {
          s.stats.add(CacheCounter.PEER_COALESCED_BLOCKS, 1);
        }
        next = b + 1;
      } else {
        List<CompletableFuture<PeerReader.PeerBlock>> claimed = transfers.claim(s.version, b, Math.min(end, b + chunkBlocks));
        if (claimed.isEmpty()) {
          // another thread claimed block b just now: wait for its transfer
          continue;
        }
        if (transfers.transfer(s.version, blockSize, b, claimed)) {
          s.stats.add(CacheCounter.FALLBACK_PEER, 1);
        }
        for (CompletableFuture<PeerReader.PeerBlock> future : claimed) {
          received.add(future.getNow(null));
        }
        next = b + claimed.size();
      }
      for (int i = 0; i < received.size(); i++) {
        PeerReader.PeerBlock block = received.get(i);
        long blockStart = (long) (b + i) * blockSize;
        long from = Math.max(position, blockStart);
        long to = Math.min(limit, blockStart + blockSize);
        if (block == null) {
          if (sourceFrom < 0) {
            sourceFrom = from;
          }
          continue;
        }
        if (sourceFrom >= 0) {
          readSource(s, sourceFrom, part.slice((int) (sourceFrom - position), (int) (from - sourceFrom)));
          sourceBytes += from - sourceFrom;
          sourceFrom = -1;
        }
        part.put((int) (from - position), block.bytes(), block.offset() + (int) (from - blockStart), (int) (to - from));
        peerBytes += to - from;
        s.lastPeerBlock = block;
      }
      b = next;
    }
    if (sourceFrom >= 0) {
      readSource(s, sourceFrom, part.slice((int) (sourceFrom - position), (int) (limit - sourceFrom)));
      sourceBytes += limit - sourceFrom;
    }
    s.stats.add(CacheCounter.PEER_BYTES, peerBytes);
    s.stats.add(CacheCounter.NON_OWNER_SOURCE_BYTES, sourceBytes);
  }

  /** Starts fetching the blocks of {@code [first, end)} this node does not admit from their owners, one chunk per task, kept by the stream until read. */
  private void peerReadAhead(ReadSession s, int first, int end) {
    int b = first;
    while (b < end) {
      if (admits(s, b) || s.peerAhead.containsKey(b)) {
        b++;
        continue;
      }
      CompletableFuture<PeerReader.PeerBlock> other = transfers.inFlight(s.version, b);
      if (other != null) {
        s.peerAhead.put(b, other);
        b++;
        continue;
      }
      int runEnd = b + 1;
      while (runEnd < end && runEnd - b < chunkBlocks && !admits(s, runEnd) && !s.peerAhead.containsKey(runEnd)) {
        runEnd++;
      }
      List<CompletableFuture<PeerReader.PeerBlock>> claimed = transfers.claim(s.version, b, runEnd);
      if (claimed.isEmpty()) {
        continue;
      }
      for (int i = 0; i < claimed.size(); i++) {
        s.peerAhead.put(b + i, claimed.get(i));
      }
      int start = b;
      s.stats.add(CacheCounter.PEER_READAHEAD_BLOCKS, claimed.size());
      try {
        fetchExecutor.execute(() -> {
          if (transfers.transfer(s.version, blockSize, start, claimed)) {
            s.stats.add(CacheCounter.FALLBACK_PEER, 1);
          }
        });
      } catch (RejectedExecutionException e) {
        transfers.abandon(s.version, start, claimed);
      }
      b += claimed.size();
    }
  }

  private boolean admits(ReadSession s, int block) {
    return admission.admits(s.version.path(), (long) block * blockSize);
  }

  private void acquireAdmittedAndRead(ReadSession s, int first, int end, long position, ByteBuffer part) throws IOException {
    BlockRange lease;
    try {
      lease = service.acquire(s.version, first, end);
    } catch (IOException | RuntimeException e) {
      metadataFailure(s, e);
      readSource(s, position, part);
      return;
    }
    // closed in reverse order: first wait for every chunk writing into part, then give back the grants nobody fetched
    try (GrantedRuns granted = new GrantedRuns(service, inFlight, lease, first, end, chunkBlocks); ChunkFetches fetches = new ChunkFetches(fetchExecutor)) {
      try {
        int b = first;
        while (b < end) {
          BlockState state = lease.state(b);
          int runEnd = b + 1;
          while (runEnd < end && lease.state(runEnd) == state) {
            runEnd++;
          }
          long from = Math.max(position, (long) b * blockSize);
          long to = Math.min(position + part.remaining(), (long) runEnd * blockSize);
          ByteBuffer slice = part.slice((int) (from - position), (int) (to - from));
          switch (state) {
            case GRANTED -> fetchGranted(s, granted.in(b, runEnd), granted, fetches, from, slice);
            case CACHED -> readCachedRun(s, lease, b, runEnd, from, slice, false);
            case IN_FLIGHT -> awaitInFlight(s, b, runEnd, from, slice);
            case DENIED, MISSING -> {
              s.stats.add(CacheCounter.FALLBACK_NO_SPACE, runEnd - b);
              readSource(s, from, slice);
            }
          }
          b = runEnd;
        }
      } catch (IOException | RuntimeException | Error e) {
        fetches.cancel();
        throw e;
      }
    }
  }

  /** Fetches granted {@code runs} (one chunk each) into {@code part}: the first in this thread, the others in parallel. */
  private void fetchGranted(ReadSession s, List<GrantedRun> runs, GrantedRuns granted, ChunkFetches fetches, long position, ByteBuffer part)
      throws IOException {
    for (int i = 1; i < runs.size(); i++) {
      GrantedRun run = granted.take(runs.get(i));
      if (!fetches.submit(run, r -> fetchForRead(s, r, position, part))) {
        fetchForRead(s, run, position, part);
      }
    }
    if (!runs.isEmpty()) {
      fetchForRead(s, granted.take(runs.get(0)), position, part);
    }
  }

  /**
   * Fetches the blocks of {@code run} with one source read, copies the part of them inside
   * {@code [position, position + part.remaining())} into {@code part} (absolute puts: chunks of one
   * read fill disjoint regions in parallel), then writes and commits them, in the background unless
   * strict mode wants write errors reported. Ends {@code run}, or hands it to the writer.
   */
  private void fetchForRead(ReadSession s, GrantedRun run, long position, ByteBuffer part) throws IOException {
    boolean handedOn = false;
    try {
      byte[] bytes = fetch(s, run);
      long start = (long) run.first() * blockSize;
      long from = Math.max(position, start);
      long to = Math.min(position + part.remaining(), start + bytes.length);
      if (from < to) {
        part.put((int) (from - position), bytes, (int) (from - start), (int) (to - from));
        s.stats.add(CacheCounter.MISS_BYTES, to - from);
        s.stats.add(CacheCounter.MISS_BLOCKS, block(to - 1) - block(from) + 1);
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
  private void fetchAndCache(ReadSession s, GrantedRun run) throws IOException {
    try (run) {
      writeAndCommit(s, run, fetch(s, run));
    }
  }

  /** Reads the blocks of {@code run} from the source with one request and hands them to readers of this JVM waiting for them. */
  private byte[] fetch(ReadSession s, GrantedRun run) throws IOException {
    long start = (long) run.first() * blockSize;
    int length = (int) (Math.min((long) run.end() * blockSize, s.version.length()) - start);
    byte[] bytes = new byte[length];
    s.source.readFully(start, bytes, 0, length);
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

  /** Writes the blocks of {@code run} to its data file and settles it: commits what was written, gives back the rest. */
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
      metadataFailure(s, e);
    }
  }

  private void awaitInFlight(ReadSession s, int first, int end, long position, ByteBuffer part) throws IOException {
    if (config.inFlightPolicy() == InFlightPolicy.SOURCE) {
      readSource(s, position, part);
      return;
    }
    s.stats.add(CacheCounter.INFLIGHT_WAITS, 1);
    BlockRange after;
    try {
      after = service.awaitInFlight(s.version, first, end, config.inFlightWaitTimeout().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for blocks [" + first + ", " + end + ") of " + s.version.path());
    } catch (IOException | RuntimeException e) {
      metadataFailure(s, e);
      readSource(s, position, part);
      return;
    }
    for (int b = first; b < end; b++) {
      long from = Math.max(position, (long) b * blockSize);
      long to = Math.min(position + part.remaining(), (long) (b + 1) * blockSize);
      ByteBuffer slice = part.slice((int) (from - position), (int) (to - from));
      if (after.state(b) == BlockState.CACHED) {
        readCachedRun(s, after, b, b + 1, from, slice, false);
      } else {
        s.stats.add(CacheCounter.FALLBACK_INFLIGHT, 1);
        readSource(s, from, slice);
      }
    }
  }

  private void readAhead(ReadSession s, int first, int end) {
    // only admitted blocks are read ahead: the others would be fetched into a cache that does not keep them
    int b = first;
    while (b < end) {
      boolean admitted = admitsAll || admits(s, b);
      int runEnd = b + 1;
      while (runEnd < end && (admitsAll || admits(s, runEnd) == admitted)) {
        runEnd++;
      }
      if (admitted) {
        readAheadAdmitted(s, b, runEnd);
      }
      b = runEnd;
    }
  }

  private void readAheadAdmitted(ReadSession s, int first, int end) {
    BlockRange lease;
    try {
      lease = service.acquire(s.version, first, end);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Read-ahead of {} blocks [{}, {}) skipped", s.version.path(), first, end, e);
      return;
    }
    // nobody waits for read-ahead: each chunk task ends its run, a refused one is given back when granted closes
    try (GrantedRuns granted = new GrantedRuns(service, inFlight, lease, first, end, chunkBlocks)) {
      for (GrantedRun run : granted.in(first, end)) {
        s.stats.add(CacheCounter.READAHEAD_BLOCKS, run.end() - run.first());
        try {
          fetchExecutor.execute(() -> {
            try {
              fetchAndCache(s, run);
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
    boolean othersFetching = false;
    for (int b = first; b < end; b++) {
      othersFetching |= lease.state(b) == BlockState.IN_FLIGHT;
    }
    try (GrantedRuns granted = new GrantedRuns(service, inFlight, lease, first, end, chunkBlocks); ChunkFetches fetches = new ChunkFetches(fetchExecutor)) {
      try {
        List<GrantedRun> runs = granted.in(first, end);
        for (int i = 1; i < runs.size(); i++) {
          GrantedRun run = granted.take(runs.get(i));
          if (!fetches.submit(run, r -> fetchAndCache(s, r))) {
            run.close();
          }
        }
        if (!runs.isEmpty()) {
          fetchAndCache(s, granted.take(runs.get(0)));
        }
      } catch (IOException | RuntimeException | Error e) {
        fetches.cancel();
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
    return service.status(s.version, first, end);
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

  private void readSource(ReadSession s, long position, ByteBuffer part) throws IOException {
    int length = part.remaining();
    if (length == 0) {
      return;
    }
    if (part.hasArray()) {
      s.source.readFully(position, part.array(), part.arrayOffset() + part.position(), length);
    } else {
      byte[] bytes = new byte[length];
      s.source.readFully(position, bytes, 0, length);
      part.put(part.position(), bytes);
    }
    s.stats.add(CacheCounter.SOURCE_REQUESTS, 1);
    s.stats.add(CacheCounter.SOURCE_BYTES, length);
  }

  private void metadataFailure(ReadSession s, Exception e) throws IOException {
    s.stats.add(CacheCounter.FALLBACK_METADATA, 1);
    if (e instanceof BookKeeperUnavailableException) {
      // the client logs each failure once and backs off; every read during the backoff would repeat it
      LOG.debug("BookKeeper unavailable for {}; reading the source", s.version.path(), e);
    } else {
      LOG.warn("Cache metadata service failed for {}; reading the source", s.version.path(), e);
    }
    failures.handle(e, "Cache metadata service failed for " + s.version.path());
  }

  private void reportCorrupt(ObjectVersion version, int block) {
    try {
      service.reportCorrupt(version, block);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not report corrupt block {} of {}", block, version, e);
    }
  }

  private int block(long position) {
    return (int) (position / blockSize);
  }
}
