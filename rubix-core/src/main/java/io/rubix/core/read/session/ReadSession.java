package io.rubix.core.read.session;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.peer.PeerReader.PeerBlock;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-stream state of the read path: what is read, from where, the last block status seen, read-ahead progress.
 * It lives in the base package so that every part of the read path can take it; it knows none of them.
 *
 * <p>Ownership, field by field (a field is written, through its method, only by its owner; any part may read it):
 * <ul>
 *   <li>{@code version}, {@code source}, {@code stats}, {@code blockCount}: final, set here;
 *   <li>{@code recentStatus}: {@link io.rubix.core.read.BlockReader} (the planner sets it, clears it when a cached block fails,
 *       and on {@code unbuffer}), and {@link io.rubix.core.read.fill.StatusWindows} on its behalf;
 *   <li>{@code lastPeerBlock}: {@link io.rubix.core.read.peer.PeerBlocks};
 *   <li>{@code peerAhead}: {@link io.rubix.core.read.peer.PeerBlocks} adds entries and clears them on {@code unbuffer}; this class's
 *       window bookkeeping ({@link #noteRead}, {@link #notePeerRead}) drops them when the stream jumps or passes them;
 *   <li>{@code held}: {@link io.rubix.core.read.uncached.SourceReads} adds, serves and clears, and
 *       {@link io.rubix.core.read.fetch.SourceFetches} keeps the blocks whose cache write failed; {@link #noteRead} drops
 *       what the stream passed, and all of it when the stream jumps;
 *   <li>{@code cachedReads}: {@link io.rubix.core.read.CachedBlocks}, through {@link #noteCachedRead} and {@link #takeCachedReads};
 *   <li>the read-ahead windows (the private fields): this class, under its lock.
 * </ul>
 * Positioned reads of one stream may run in parallel: the shared fields are volatile or concurrent.
 */
public final class ReadSession {
  public final ObjectVersion version;
  public final Source source;
  public final StreamStats stats;
  public final int blockCount;
  /** The last status answer, reused while it says the blocks a read needs are cached. Owner: {@link io.rubix.core.read.BlockReader}. */
  private volatile BlockRange recentStatus;
  /**
   * The last block received from a peer (verified), so small reads inside it need no second transfer.
   * Owner: {@link io.rubix.core.read.peer.PeerBlocks}.
   */
  private volatile PeerBlock lastPeerBlock;
  /**
   * Blocks owned elsewhere that read-ahead is receiving or has received from their owners, by block index.
   * Owner: {@link io.rubix.core.read.peer.PeerBlocks}.
   */
  private final ConcurrentHashMap<Integer, CompletableFuture<PeerBlock>> peerAhead = new ConcurrentHashMap<>();
  /**
   * Bytes read from the source that the cache does not keep, held for this stream's next reads.
   * Owner: {@link io.rubix.core.read.uncached.SourceReads}.
   */
  private final HeldBytes held;

  /** The data file the last cached read used, as named in a status answer and as a path (parsed once per file, not per read). */
  private volatile DataFilePath lastDataFile;
  /** Blocks read from the cache and not yet reported to the service; guarded by itself. Owner: {@link io.rubix.core.read.CachedBlocks}. */
  private final CachedReads cachedReads = new CachedReads();

  /** Where the last stream read ended; -1 before the first, so that a first read at 0 continues nothing. */
  @GuardedBy("this")
  private long lastReadEnd = -1;
  /** Where the last stream read started. */
  @GuardedBy("this")
  private long lastReadStart = -1;
  /** Where the current run of reads, each continuing the previous one, started. */
  @GuardedBy("this")
  private long runStart;
  @GuardedBy("this")
  private int windowBlocks;
  @GuardedBy("this")
  private int readAheadEnd;
  @GuardedBy("this")
  private int windowGrownAt;
  @GuardedBy("this")
  private int peerAheadEnd;

  /** A session that holds no bytes the cache declines (it reads them from the source as it needs them). */
  public ReadSession(ObjectVersion version, Source source, StreamStats stats, int blockSize) {
    this(version, source, stats, blockSize, new UncachedMemory(0));
  }

  /** A session that holds bytes the cache declines within {@code memory}. */
  public ReadSession(ObjectVersion version, Source source, StreamStats stats, int blockSize, UncachedMemory memory) {
    this.held = new HeldBytes(memory, blockSize);
    this.version = requireNonNull(version, "version is null");
    this.source = requireNonNull(source, "source is null");
    this.stats = requireNonNull(stats, "stats is null");
    this.blockCount = version.blockCount(blockSize);
  }

  /** {@code dataFile}, a status answer's data file, as a path. */
  public Path dataFile(String dataFile) {
    DataFilePath last = lastDataFile;
    if (last == null || !last.name().equals(dataFile)) {
      last = new DataFilePath(dataFile, Path.of(dataFile));
      lastDataFile = last;
    }
    return last.path();
  }

  private record DataFilePath(String name, Path path) {}

  /** The last status answer, or null: reused while it says the blocks a read needs are cached. */
  public BlockRange recentStatus() {
    return recentStatus;
  }

  /** Keeps {@code status} as the last status answer; null forgets it, so that the next read asks again. */
  public void recentStatus(BlockRange status) {
    recentStatus = status;
  }

  /** The bytes this stream holds in memory because the cache declines them. */
  public HeldBytes held() {
    return held;
  }

  /**
   * Notes that {@code block} was read from the cache; when that fills the record, takes it (in the same
   * step, so that a read of another thread cannot add to a full record) and returns the blocks to report
   * now, else null. A block read again right after itself (small reads of one block) is noted once.
   */
  public int[] noteCachedRead(int block) {
    synchronized (cachedReads) {
      return cachedReads.add(block) ? cachedReads.take() : null;
    }
  }

  /** The blocks noted since the last call, oldest first; empty when none. */
  public int[] takeCachedReads() {
    synchronized (cachedReads) {
      return cachedReads.take();
    }
  }

  /**
   * Records a stream read of {@code [position, position + length)} and returns the block range to read
   * ahead, as {@code {start, end}}, or null when nothing should be read ahead.
   *
   * <p>Read-ahead follows evidence of a sequential scan: a read that continues where the previous read
   * of this stream ended. One read is no evidence (the first read of a file, a footer, or one column
   * chunk read whole tells nothing about the next), so a stream's first read and any read after a jump
   * start a new run and read nothing ahead. Nor is a read that continues one of at least a fetch chunk
   * ({@code chunkBlocks}): a reader that asks for that much at once names the range it needs and reads
   * a longer one in several buffers (Parquet reads a run of adjacent column chunks in buffers of 8 MiB),
   * so what lies past it is no more likely to be read than anything else; such a read starts a new run
   * too. Once a read continues the run, the window starts at twice the
   * bytes the run has read (at least one block, at most {@code maxWindowBlocks}), so a reader of small
   * buffers gets a small window and a reader of whole blocks a larger one, and it doubles each time the
   * reader moves on to a new block, up to {@code maxWindowBlocks}. The window is kept full: as soon as
   * the reader has moved far enough that a whole chunk ({@code chunkBlocks}) beyond the read-ahead end
   * fits in the window (or the window reaches the end of the object), that part is requested. A stream
   * therefore has close to a whole window in flight at all times, issued one chunk-sized request at a
   * time, instead of waiting until half the window is consumed and then requesting the other half at once
   * (which stalls a fast reader on the source's first-byte latency at every refill).
   */
  public synchronized int[] noteRead(long position, int length, int blockSize, int maxWindowBlocks, int chunkBlocks) {
    boolean continues = position == lastReadEnd;
    boolean afterNamedRange = lastReadEnd - lastReadStart >= (long) chunkBlocks * blockSize;
    lastReadStart = position;
    lastReadEnd = position + length;
    if (!continues || afterNamedRange || maxWindowBlocks <= 0) {
      runStart = position;
      windowBlocks = 0;
      readAheadEnd = 0;
      peerAheadEnd = 0;
      peerAhead.clear();
      if (!continues) {
        held.clear();
      }
      return null;
    }
    held.dropBefore(position);
    int lastBlock = (int) ((position + length - 1) / blockSize);
    if (windowBlocks == 0) {
      long evidence = 2 * (lastReadEnd - runStart);
      windowBlocks = (int) Math.min(maxWindowBlocks, Math.max(1, (evidence + blockSize - 1) / blockSize));
      windowGrownAt = lastBlock;
    } else if (lastBlock > windowGrownAt) {
      windowBlocks = Math.min(maxWindowBlocks, windowBlocks * 2);
      windowGrownAt = lastBlock;
    }
    int start = Math.max(lastBlock + 1, readAheadEnd);
    int end = Math.min(blockCount, lastBlock + 1 + windowBlocks);
    if (start >= end || (end - start < Math.min(chunkBlocks, windowBlocks) && end < blockCount)) {
      return null;
    }
    readAheadEnd = end;
    return new int[] {start, end};
  }

  /** Where the last stream read started and ended, as {@code {start, end}}; {@code {-1, -1}} before the first. */
  public synchronized long[] lastRead() {
    return new long[] {lastReadStart, lastReadEnd};
  }

  /** Whether the stream's last read continued the one before it, with read-ahead on: the evidence of a sequential scan. */
  public synchronized boolean sequential() {
    return windowBlocks > 0;
  }

  /**
   * Read-ahead of blocks other nodes own, after a read whose last block is {@code lastBlock}: the
   * range {@code {start, end}} to fetch from their owners, or null. Only while the stream reads
   * sequentially (as {@link #noteRead} last decided); keeps up to {@code aheadBlocks} blocks past the
   * read requested, one chunk at a time, and forgets blocks before {@code firstBlock}, which the
   * stream has passed.
   */
  public synchronized int[] notePeerRead(int firstBlock, int lastBlock, int aheadBlocks, int chunkBlocks) {
    peerAhead.keySet().removeIf(b -> b < firstBlock);
    if (windowBlocks == 0 || aheadBlocks <= 0) {
      return null;
    }
    int start = Math.max(lastBlock + 1, peerAheadEnd);
    int end = Math.min(blockCount, lastBlock + 1 + aheadBlocks);
    if (start >= end || (end - start < Math.min(chunkBlocks, aheadBlocks) && end < blockCount)) {
      return null;
    }
    peerAheadEnd = end;
    return new int[] {start, end};
  }

  /** A block of this stream received from its owner: the last one, or one read ahead; null when neither. */
  public CompletableFuture<PeerBlock> peerBlock(int block) {
    PeerBlock last = lastPeerBlock;
    if (last != null && last.block() == block && last.version().equals(version)) {
      return CompletableFuture.completedFuture(last);
    }
    return peerAhead.get(block);
  }

  /** Keeps {@code block}, just received from its owner, as the last one: small reads inside it need no second transfer. */
  public void lastPeerBlock(PeerBlock block) {
    lastPeerBlock = block;
  }

  /** Keeps {@code transfer}, of {@code block} from its owner, for this stream's reads ahead of it. */
  public void peerAhead(int block, CompletableFuture<PeerBlock> transfer) {
    peerAhead.put(block, transfer);
  }

  /** The blocks this stream is receiving or has received ahead from their owners: a copy, for tests. */
  public Set<Integer> peerAheadBlocks() {
    return Set.copyOf(peerAhead.keySet());
  }

  /** Forgets every block received or being received from owners (a stream's {@code unbuffer}). */
  public void forgetPeerBlocks() {
    lastPeerBlock = null;
    peerAhead.clear();
  }
}
