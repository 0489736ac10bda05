package io.rubix.core.metadata;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.metadata.journal.MetadataJournal;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheInsights;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The cache metadata service in the reader's own JVM (embedded mode), and the daemon's.
 *
 * <p>A façade over one {@link ServiceState}: it checks arguments and hands each operation to the part
 * whose job it is — {@link Acquisitions} (grants), {@link Commits} (commits and aborts),
 * {@link InFlightWaits} (waits for blocks someone else fetches), {@link Administration} (invalidation,
 * corrupt reports, listings), {@link Housekeeping} (recovery at start, idle expiry) — and answers the
 * status of blocks itself. Every part takes the state's one lock, decides with the state's parts,
 * which never lock ({@link ObjectTable}, {@link Grants}, {@link BlockRanges}, {@link LeaseTable},
 * {@link SpaceLedger}, {@link RuleQuotas}, {@link SettleWaiters}), releases it, and only then does
 * I/O through {@link ObjectFiles}.
 *
 * <p>Design: one lock guards all metadata; every call holds it for a few map and bit-set operations
 * and never for file I/O. Journal appends, the creation of an object's files (the object is
 * {@code creating} meanwhile, and other acquirers of it wait for that one object only), the check of
 * committed bytes and the deletion of dropped files all happen with the lock released, so a stalled
 * disk delays the readers of objects on that disk and nothing else. A block is journaled as published
 * before it is published in memory; a block is unpublished in memory before it is journaled so.
 * Waits for in-flight blocks hold no thread ({@link #whenSettled}) in the daemon.
 * Space is charged when a block is granted, before any byte is written, and given back only after
 * the dropped object's files are truncated (until then it is "releasing", still charged, so no
 * grant is made in space whose old bytes are still on disk), so a disk's cap is never exceeded:
 * granting evicts objects that no lease is fetching into (the least recently used, or under TinyLFU
 * those read less often recently than the requester), and denies the block
 * when that is not enough. A block stays charged while bytes may be on disk (granted,
 * aborted after a write, published, or dropped as corrupt) until its object is evicted; a grant is
 * journaled as a charge before it is answered, so a restarted service still charges the blocks that
 * the grantees of a crashed one wrote, or are still writing (an abort without a write then stays
 * charged after a restart: the cap errs on the safe side). Charges are
 * what the disk allocates ({@link DiskCharge}: blocks rounded up to 4 KiB, plus a unit per object),
 * and every request and resource is bounded: {@link #MAX_BLOCKS_PER_CALL} blocks per call, and
 * {@code maxObjects} tracked versions, beyond which the least recently used object is evicted.
 */
public final class InProcessMetadataService implements CacheMetadataService, CacheAdministration, CacheInsights {
  private final ServiceState state;
  private final Acquisitions acquisitions;
  private final Commits commits;
  private final InFlightWaits waits;
  private final Administration administration;
  private final Housekeeping housekeeping;

  /** The service {@code options} set up, started from what their journal recovers. */
  public InProcessMetadataService(ServiceOptions options) {
    this.state = new ServiceState(options);
    this.acquisitions = new Acquisitions(state);
    this.commits = new Commits(state);
    this.waits = new InFlightWaits(state);
    this.administration = new Administration(state);
    this.housekeeping = new Housekeeping(state, options.journal());
    housekeeping.recover();
  }

  /**
   * The service for cache roots {@code roots} (one per cache directory) as {@code config} sets it up
   * ({@link ServiceOptions#of}), sweeping idle versions when expiry is on. The one assembly of a service
   * from configuration, for the BookKeeper and for embedded mode.
   */
  public static InProcessMetadataService forDirectories(CacheConfig config, List<Path> roots, MetadataJournal journal) {
    InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.of(config, roots, journal));
    service.startIdleSweeps();
    return service;
  }

  /** A service configured as {@link #forDirectories} with no space: every grant is refused, every read goes to the source. */
  public static InProcessMetadataService withoutSpace(CacheConfig config, Path root) {
    return new InProcessMetadataService(ServiceOptions.builder(config.blockSize(), List.of(root), List.of(0L))
        .leaseTimeout(config.leaseTimeout())
        .maxObjects(config.maxObjects())
        .build());
  }

  /** The counters (recovery, refused commits, admission, expiry, rules), read together. */
  public ServiceCounters counters() {
    return state.counters();
  }

  /**
   * Drops every object version nobody has read for {@code rubix.cache.expire.after.idle} (none is
   * being fetched into) and journals when the others read since the last sweep were last read, so a
   * restarted service counts from there; the number dropped. Nothing when expiry is off. Scans all
   * objects under the lock (about a millisecond per 100,000), with the journal writes and file
   * deletions after it.
   */
  public int expireIdle() {
    return housekeeping.expireIdle();
  }

  /** Runs {@link #expireIdle} every {@link IdleExpiry#sweepInterval} until {@link #close}, when expiry is on. */
  public void startIdleSweeps() {
    housekeeping.startIdleSweeps();
  }

  @Override
  public boolean inProcess() {
    return true;
  }

  /** Tells {@code listener} the data file of each dropped object before it is deleted, so this JVM's open handles to it can be closed. */
  @Override
  public void addEvictionListener(Consumer<Path> listener) {
    state.files.addEvictionListener(listener);
  }

  @Override
  public int blockSize() {
    return state.blockSize;
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock) {
    state.checkRange(version, firstBlock, endBlock);
    BlockRange range = answer(version, firstBlock, endBlock, firstBlock);
    // a caller that does not report its reads: the cached blocks it is told of count as read
    readsCounted(version, IntStream.range(firstBlock, endBlock).filter(b -> range.state(b) == BlockState.CACHED).toArray());
    return range;
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock, int readBlock) {
    state.checkRange(version, firstBlock, endBlock);
    CacheMetadataService.checkReadBlock(firstBlock, endBlock, readBlock);
    return answer(version, firstBlock, endBlock, readBlock);
  }

  /** {@link #status}: counts a read starting at {@code readBlock} (LRU order, TinyLFU's frequency) and describes the range. */
  private BlockRange answer(ObjectVersion version, int firstBlock, int endBlock, int readBlock) {
    state.lock.lock();
    try {
      state.expireLeases();
      CachedObject object = state.touch(version, readBlock);
      state.space.accessed(version, readBlock, object);
      return BlockRanges.describe(version, object, firstBlock, endBlock, null);
    } finally {
      state.lock.unlock();
    }
  }

  @Override
  public void reportReads(ObjectVersion version, int[] blocks) {
    if (blocks.length > MAX_BLOCKS_PER_CALL) {
      throw new IllegalArgumentException(blocks.length + " blocks reported, more than " + MAX_BLOCKS_PER_CALL);
    }
    int blockCount = version.blockCount(state.blockSize);
    for (int block : blocks) {
      if (block < 0 || block >= blockCount) {
        throw new IllegalArgumentException("Block " + block + " is outside [0, " + blockCount + ") of " + version.path());
      }
    }
    readsCounted(version, blocks);
  }

  /** Counts {@code blocks} of {@code version}, read from the cache, as hits: per table and working set, and TinyLFU's hit ratio. */
  private void readsCounted(ObjectVersion version, int[] blocks) {
    state.insight.readsReported(version, blocks);
    if (state.adaptive) {
      long bytes = 0;
      for (int block : blocks) {
        bytes += version.blockLength(block, state.blockSize);
      }
      readForPolicy(bytes, bytes);
    }
  }

  @Override
  public BlockRange acquire(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    BlockRange range = acquisitions.grant(version, firstBlock, endBlock);
    state.insight.acquired(range);
    if (state.adaptive) {
      long missed = 0;
      for (int block = range.firstBlock(); block < range.endBlock(); block++) {
        BlockState blockState = range.state(block);
        if (blockState == BlockState.GRANTED || blockState == BlockState.DENIED) {
          missed += version.blockLength(block, state.blockSize);
        }
      }
      readForPolicy(0, missed);
    }
    return range;
  }

  /** Tells the eviction policy, which adapts to the hit ratio, of a read of {@code bytes}, {@code hitBytes} of them from the cache. */
  private void readForPolicy(long hitBytes, long bytes) {
    if (bytes == 0) {
      return;
    }
    state.lock.lock();
    try {
      state.space.read(hitBytes, bytes);
    } finally {
      state.lock.unlock();
    }
  }

  /**
   * Publishes the blocks of {@code blocks} the lease still holds whose bytes in the data file match the
   * CRC32C claimed for them. The bytes are read back and checked outside the lock; a block that does
   * not match (never written, written elsewhere, file dropped meanwhile) is refused: it stays charged
   * but unpublished, as after an abort of written blocks, and counted. A block of zeros is checked
   * the same way, although a hole (a block nobody wrote) passes: it reads as the zeros claimed, which
   * are the source's bytes, since writers claim the CRC32C of zeros only for zeros (see ObjectFiles).
   */
  @Override
  public int commit(long leaseId, int[] blocks, int[] crc32c) throws IOException {
    return commits.commit(leaseId, blocks, crc32c);
  }

  @Override
  public void abort(long leaseId, int[] blocks, boolean written) {
    commits.abort(leaseId, blocks, written);
  }

  /**
   * The state of blocks {@code [firstBlock, endBlock)} once none of them is in flight, or at the
   * deadline, whichever comes first, without a waiting thread: the daemon answers its clients' waits
   * with it, so a waiting client never occupies a server worker. The future completes on the
   * service's scheduler thread, never under the metadata lock. At most {@value SettleWaiters#MAX_WAITERS}
   * waits are pending at once; beyond that a wait is answered at once with the current state.
   */
  public CompletableFuture<BlockRange> whenSettled(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) {
    return waits.whenSettled(version, firstBlock, endBlock, timeoutMillis);
  }

  @Override
  public BlockRange awaitInFlight(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) throws InterruptedException {
    return waits.awaitInFlight(version, firstBlock, endBlock, timeoutMillis);
  }

  /**
   * Acts on a reader's report that {@code block} of {@code version} failed (checksum mismatch, or its
   * file gone) after checking the current data file itself: a mismatch unpublishes that block; a file
   * that is missing or not at its live length (truncated by someone else) drops the object; an intact
   * block stays. So a reader that raced an eviction, and read a file that was dropped, never drops
   * the same block of a newer data file of the version, which holds good bytes.
   */
  @Override
  public void reportCorrupt(ObjectVersion version, int block) throws IOException {
    administration.reportCorrupt(version, block);
  }

  @Override
  public void invalidate(ObjectVersion version) {
    administration.invalidate(version);
  }

  @Override
  public int invalidatePath(String path) {
    return administration.invalidatePath(path);
  }

  @Override
  public long immutableLength(String path) {
    return administration.immutableLength(path);
  }

  @Override
  public List<CachedFile> topFiles(int limit) {
    return administration.topFiles(limit);
  }

  @Override
  public int clear() {
    return administration.clear();
  }

  /** Per-table counters with the bytes each table holds now, and the working-set estimate. */
  @Override
  public CacheInsightReport insight() {
    return administration.insight();
  }

  @Override
  public CacheUsage usage() {
    state.lock.lock();
    try {
      return state.space.usage(state.objects.evictions(), state.objects.admissionRejections());
    } finally {
      state.lock.unlock();
    }
  }

  @Override
  public void close() {
    state.lock.lock();
    try {
      state.leases.clear();
      for (CachedObject object : state.objects.all()) {
        object.inFlight.clear();
      }
      state.inFlightChanged();
      state.waiters.close();
    } finally {
      state.lock.unlock();
    }
    state.idleExpiry.close();
  }
}
