package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.CacheRules;
import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.config.InsightConfig;
import io.rubix.core.insight.CacheInsight;
import io.rubix.core.insight.CachedBytes;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheInsights;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.DataFileLayout;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache metadata service in the reader's own JVM (embedded mode), and the daemon's.
 *
 * <p>A façade: it holds the one lock, checks arguments, and for each operation takes the lock, has
 * its parts decide, releases it, and then does the operation's I/O through {@link ObjectFiles}. The
 * parts never lock: {@link ObjectTable} (the objects tracked, and evictions among them),
 * {@link Grants} (what an acquire starts and grants), {@link JournalRecovery} (the start from the
 * journal), {@link BlockRanges} (the answers), {@link LeaseTable} (grants), {@link SpaceLedger}
 * (charges against each cap, eviction by LRU or TinyLFU, bytes released only once gone,
 * {@link FencedWrites}), {@link RuleQuotas}, {@link SettleWaiters} (waits without threads) and
 * {@link ObjectFiles} (journal and data files, only ever called without the lock). Each operation's
 * locked and unlocked halves stay here, so that which state each half sees is read in one place.
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
  private static final Logger LOG = LoggerFactory.getLogger(InProcessMetadataService.class);
  /** {@code rubix.cache.max.objects} when the caller does not say. */
  public static final long DEFAULT_MAX_OBJECTS = Long.parseLong(CacheKeys.MAX_OBJECTS.defaultValue());

  private final int blockSize;
  private final DataFileLayout layout;
  private final LongSupplier nanoClock;
  private final MetadataJournal journal;
  private final ObjectFiles files;
  private final long maxObjects;
  /** Counters per table and the working-set estimate: told of every answer, commit and eviction (its own lock). */
  private final CacheInsight insight;
  private final IdleExpiry idleExpiry;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition inFlightCondition = lock.newCondition();
  /** Longest an acquire waits for another caller to create the files of the object it asks for. */
  private static final long CREATE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);
  @GuardedBy("lock")
  private final ObjectTable objects;
  @GuardedBy("lock")
  private final Grants grants;
  @GuardedBy("lock")
  private final SpaceLedger space;
  /** Whether the eviction policy adapts to the hit ratio of reads (TinyLFU's window): only then are reads' bytes told to it. */
  private final boolean adaptive;
  @GuardedBy("lock")
  private final LeaseTable leases;
  @GuardedBy("lock")
  private final RuleQuotas rules;
  @GuardedBy("lock")
  private final SettleWaiters waiters;
  @GuardedBy("lock")
  private long expirations;
  @GuardedBy("lock")
  private long recoveredBlocks;
  @GuardedBy("lock")
  private long refusedBlocks;
  @GuardedBy("lock")
  private long recoveryProblems;

  /**
   * The service for cache roots {@code roots} (one per cache directory) as {@code config} sets it up:
   * its block size, lease timeout and most objects, and each root capped by {@link DiskCapacity}
   * ({@code rubix.cache.max.size}, {@code rubix.cache.usage.percentage} of the root's disk). The one
   * assembly of a service from configuration, for the BookKeeper and for embedded mode.
   */
  public static InProcessMetadataService forDirectories(CacheConfig config, List<Path> roots, MetadataJournal journal) {
    List<Long> capacities = roots.stream().map(root -> DiskCapacity.of(config, root)).toList();
    InProcessMetadataService service = new InProcessMetadataService(config.blockSize(), roots, capacities, config.leaseTimeout(), System::nanoTime,
        journal, config.maxObjects(), config.evictionPolicy(), config.expireAfterIdle(), System::currentTimeMillis, config.rules(),
        config.insight());
    service.startIdleSweeps();
    return service;
  }

  /** A service configured as {@link #forDirectories} with no space: every grant is refused, every read goes to the source. */
  public static InProcessMetadataService withoutSpace(CacheConfig config, Path root) {
    return new InProcessMetadataService(config.blockSize(), List.of(root), List.of(0L), config.leaseTimeout(), System::nanoTime,
        MetadataJournal.NONE, config.maxObjects());
  }

  /**
   * @param blockSize block size in bytes
   * @param roots one cache root directory per disk
   * @param capacities the cap in bytes of each root, same order
   * @param leaseTimeout how long a grant is held before it is given to someone else
   * @param nanoClock time source for lease expiry (System::nanoTime outside tests)
   */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, MetadataJournal.NONE);
  }

  /**
   * A service that persists its metadata in {@code journal} and starts from what the journal recovers
   * under {@code roots}.
   */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, DEFAULT_MAX_OBJECTS);
  }

  /**
   * A service that persists its metadata in {@code journal} and tracks at most {@code maxObjects}
   * object versions ({@code rubix.cache.max.objects}): caching one more evicts the least recently used.
   */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal, long maxObjects) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, maxObjects, EvictionPolicy.LRU);
  }

  /** A service as above that makes room by {@code evictionPolicy} ({@code rubix.cache.eviction.policy}). */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal, long maxObjects, EvictionPolicy evictionPolicy) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, maxObjects, evictionPolicy, Duration.ZERO, System::currentTimeMillis);
  }

  /**
   * A service as above whose object versions expire after {@code expireAfterIdle} unread
   * ({@code rubix.cache.expire.after.idle}; zero: never), by the wall clock {@code wallMillis}
   * (System::currentTimeMillis outside tests), at each {@link #expireIdle} and at start.
   */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal, long maxObjects, EvictionPolicy evictionPolicy, Duration expireAfterIdle, LongSupplier wallMillis) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, maxObjects, evictionPolicy, expireAfterIdle, wallMillis, CacheRules.NONE);
  }

  /** A service that makes room by {@code evictionPolicy} and applies the path rules {@code rules}, without idle expiry. */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal, long maxObjects, EvictionPolicy evictionPolicy, CacheRules rules) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, maxObjects, evictionPolicy, Duration.ZERO, System::currentTimeMillis, rules);
  }

  /**
   * A service as above that also applies the path rules {@code rules} ({@code rubix.cache.rules}): no
   * grant for an excluded path, and the bytes charged to the objects of a rule with a quota never
   * exceed it (a percentage quota is a share of the sum of {@code capacities}).
   */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal, long maxObjects, EvictionPolicy evictionPolicy, Duration expireAfterIdle, LongSupplier wallMillis, CacheRules rules) {
    this(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, maxObjects, evictionPolicy, expireAfterIdle, wallMillis, rules,
        InsightConfig.defaults());
  }

  /** A service as above that reports per table and estimates the working set as {@code insightConfig} says. */
  public InProcessMetadataService(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
      MetadataJournal journal, long maxObjects, EvictionPolicy evictionPolicy, Duration expireAfterIdle, LongSupplier wallMillis, CacheRules rules,
      InsightConfig insightConfig) {
    if (maxObjects < 1) {
      throw new IllegalArgumentException("maxObjects must be positive: " + maxObjects);
    }
    this.maxObjects = maxObjects;
    if (blockSize <= 0) {
      throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
    }
    this.blockSize = blockSize;
    this.layout = new DataFileLayout(roots);
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    this.space = new SpaceLedger(roots, capacities, nanoClock, evictionPolicy);
    this.adaptive = space.adaptive();
    this.rules = new RuleQuotas(rules, capacities.stream().reduce(0L, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b));
    this.leases = new LeaseTable(leaseTimeout.toNanos());
    this.waiters = new SettleWaiters(nanoClock, this::recheckWaiters);
    this.journal = requireNonNull(journal, "journal is null");
    this.files = new ObjectFiles(journal, blockSize);
    this.idleExpiry = new IdleExpiry(expireAfterIdle, wallMillis);
    long capacity = capacities.stream().mapToLong(Long::longValue).reduce(0, (a, b) -> a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b);
    this.insight = new CacheInsight(insightConfig, blockSize, capacity, nanoClock);
    // Error Prone assumes a method reference runs later, without the lock; ObjectTable runs this one
    // only from its own methods, which run under the lock
    @SuppressWarnings("GuardedBy")
    Runnable inFlightChanged = this::inFlightChanged;
    this.objects = new ObjectTable(space, leases, insight, inFlightChanged);
    this.grants = new Grants(objects, space, this.rules, layout, idleExpiry, blockSize, maxObjects);
    recover();
  }

  /**
   * Starts from what the journal recovers. Never throws: a journal that fails as a whole leaves the
   * service empty, and files recovery could not delete stay charged to their disk (not evictable), so
   * the cap bounds what is really on disk after a restart.
   */
  private void recover() {
    MetadataJournal.Recovery recovery;
    try {
      recovery = journal.recover(layout.roots(), blockSize);
      recovery = new MetadataJournal.Recovery(files.live(recovery.objects()), recovery.leftovers(), recovery.problems());
    } catch (RuntimeException e) {
      LOG.warn("Could not recover cache metadata from {}; starting empty", layout.roots(), e);
      recovery = new MetadataJournal.Recovery(List.of(), List.of(), 1);
    }
    List<CachedObject> evicted = new ArrayList<>();
    long recoveredAt = nanoClock.getAsLong();
    lock.lock();
    try {
      JournalRecovery.Outcome outcome = new JournalRecovery(objects, space, rules, leases, idleExpiry, blockSize, maxObjects)
          .restore(recovery, recoveredAt, evicted);
      recoveredBlocks = outcome.blocks();
      expirations += outcome.expired();
      recoveryProblems += outcome.problems();
      LOG.info("Recovered {} cached objects with {} blocks from {}; {} expired unread, {} entries dropped or unreadable, {} undeletable files",
          objects.size(), outcome.blocks(), layout.roots(), outcome.expired(), recoveryProblems, recovery.leftovers().size());
    } finally {
      lock.unlock();
    }
    deleteFiles(evicted);
  }

  /** Blocks recovered from the journal at startup. */
  public long recoveredBlocks() {
    lock.lock();
    try {
      return recoveredBlocks;
    } finally {
      lock.unlock();
    }
  }

  /** Blocks whose commit was refused because their bytes on disk did not match the CRC32C their writer claimed. */
  public long refusedBlocks() {
    lock.lock();
    try {
      return refusedBlocks;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks whose grant the eviction policy refused ({@code tinylfu}: the object they belonged to was
   * read less often recently than the one they would have evicted); their readers read the source.
   */
  public long admissionRejections() {
    lock.lock();
    try {
      return objects.admissionRejections();
    } finally {
      lock.unlock();
    }
  }

  /** {@code tinylfu}: the share of each cache directory's cap its admission window holds now, as the hill climber sized it; 0 under {@code lru}. */
  public double evictionWindowShare() {
    lock.lock();
    try {
      return space.windowShare();
    } finally {
      lock.unlock();
    }
  }

  /** Object versions dropped because nobody read them for {@code rubix.cache.expire.after.idle}, at start and since. */
  public long expirations() {
    lock.lock();
    try {
      return expirations;
    } finally {
      lock.unlock();
    }
  }

  /** Per path rule with a quota, in configuration order: its quota and what its objects are charged now. */
  public List<RuleUsage> ruleUsage() {
    lock.lock();
    try {
      return rules.spaces().stream().map(r -> new RuleUsage(r.name, r.quotaBytes, r.usedBytes, r.lru.size(), r.evictions, r.denials)).toList();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops every object version nobody has read for {@code rubix.cache.expire.after.idle} (none is
   * being fetched into) and journals when the others read since the last sweep were last read, so a
   * restarted service counts from there; the number dropped. Nothing when expiry is off. Scans all
   * objects under the lock (about a millisecond per 100,000), with the journal writes and file
   * deletions after it.
   */
  public int expireIdle() {
    if (!idleExpiry.enabled()) {
      return 0;
    }
    List<CachedObject> expired = new ArrayList<>();
    List<CachedObject> used = new ArrayList<>();
    List<Long> usedAt = new ArrayList<>();
    long now = idleExpiry.nowMillis();
    lock.lock();
    try {
      expireLeases();
      for (CachedObject object : objects.all()) {
        if (object.creating || object.pinned()) {
          continue;
        }
        if (idleExpiry.expired(object.lastUsedMillis, now)) {
          expired.add(object);
        } else if (object.useUnsaved) {
          object.useUnsaved = false;
          used.add(object);
          usedAt.add(object.lastUsedMillis);
        }
      }
      for (CachedObject object : expired) {
        objects.drop(object);
        expirations++;
      }
    } finally {
      lock.unlock();
    }
    for (int i = 0; i < used.size(); i++) {
      files.journalUsed(used.get(i), usedAt.get(i));
    }
    deleteFiles(expired);
    if (!expired.isEmpty()) {
      LOG.info("Expired {} object versions unread for {}", expired.size(), idleExpiry.idle());
    }
    return expired.size();
  }

  /** Runs {@link #expireIdle} every {@link IdleExpiry#sweepInterval} until {@link #close}, when expiry is on. */
  public void startIdleSweeps() {
    idleExpiry.start(() -> {
      try {
        expireIdle();
      } catch (RuntimeException e) {
        LOG.warn("Idle expiry sweep failed; the next one tries again", e);
      }
    }, "rubix-idle-expiry");
  }

  /** Requests for blocks (acquires) refused because a path rule excludes their object from the cache. */
  public long ruleExcludedRequests() {
    lock.lock();
    try {
      return rules.excludedRequests();
    } finally {
      lock.unlock();
    }
  }

  /** Journal entries recovery dropped (invalid, orphaned) or could not read, at startup. */
  public long recoveryProblems() {
    lock.lock();
    try {
      return recoveryProblems;
    } finally {
      lock.unlock();
    }
  }

  /** Tells {@code listener} the data file of each dropped object before it is deleted, so this JVM's open handles to it can be closed. */
  public void addEvictionListener(Consumer<Path> listener) {
    files.addEvictionListener(listener);
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock) {
    checkRange(version, firstBlock, endBlock);
    BlockRange range = answer(version, firstBlock, endBlock, firstBlock);
    // a caller that does not report its reads: the cached blocks it is told of count as read
    readsCounted(version, IntStream.range(firstBlock, endBlock).filter(b -> range.state(b) == BlockState.CACHED).toArray());
    return range;
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock, int readBlock) {
    checkRange(version, firstBlock, endBlock);
    CacheMetadataService.checkReadBlock(firstBlock, endBlock, readBlock);
    return answer(version, firstBlock, endBlock, readBlock);
  }

  /** {@link #status}: counts a read starting at {@code readBlock} (LRU order, TinyLFU's frequency) and describes the range. */
  private BlockRange answer(ObjectVersion version, int firstBlock, int endBlock, int readBlock) {
    lock.lock();
    try {
      expireLeases();
      CachedObject object = touch(version, readBlock);
      space.accessed(version, readBlock, object);
      return BlockRanges.describe(version, object, firstBlock, endBlock, null);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void reportReads(ObjectVersion version, int[] blocks) {
    if (blocks.length > MAX_BLOCKS_PER_CALL) {
      throw new IllegalArgumentException(blocks.length + " blocks reported, more than " + MAX_BLOCKS_PER_CALL);
    }
    int blockCount = version.blockCount(blockSize);
    for (int block : blocks) {
      if (block < 0 || block >= blockCount) {
        throw new IllegalArgumentException("Block " + block + " is outside [0, " + blockCount + ") of " + version.path());
      }
    }
    readsCounted(version, blocks);
  }

  /** Counts {@code blocks} of {@code version}, read from the cache, as hits: per table and working set, and TinyLFU's hit ratio. */
  private void readsCounted(ObjectVersion version, int[] blocks) {
    insight.readsReported(version, blocks);
    if (adaptive) {
      long bytes = 0;
      for (int block : blocks) {
        bytes += version.blockLength(block, blockSize);
      }
      readForPolicy(bytes, bytes);
    }
  }

  @Override
  public BlockRange acquire(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    BlockRange range = grant(version, firstBlock, endBlock);
    insight.acquired(range);
    if (adaptive) {
      long missed = 0;
      for (int block = range.firstBlock(); block < range.endBlock(); block++) {
        BlockState state = range.state(block);
        if (state == BlockState.GRANTED || state == BlockState.DENIED) {
          missed += version.blockLength(block, blockSize);
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
    lock.lock();
    try {
      space.read(hitBytes, bytes);
    } finally {
      lock.unlock();
    }
  }

  /** {@link #acquire}: grants what it can of {@code [firstBlock, endBlock)}. */
  private BlockRange grant(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    checkRange(version, firstBlock, endBlock);
    List<CachedObject> evicted = new ArrayList<>();
    CachedObject created = null;
    CachedObject grantedObject = null;
    int[] charged = null;
    BlockRange range;
    try {
      lock.lock();
      try {
        expireLeases();
        CachedObject object = touch(version, firstBlock);
        if (object == null) {
          object = grants.start(version, firstBlock, evicted);
          if (object == null) {
            return BlockRanges.denied(version, firstBlock, endBlock);
          }
          created = object;
        } else if (object.creating && (!awaitCreated(object) || objects.get(version) != object)) {
          return BlockRanges.denied(version, firstBlock, endBlock);
        } else {
          space.accessed(version, firstBlock, object);
        }
        Lease lease = leases.create(object, nanoClock.getAsLong());
        int[] newlyCharged = grants.grant(object, lease, firstBlock, endBlock, evicted);
        if (newlyCharged.length > 0) {
          grantedObject = object;
          charged = newlyCharged;
        }
        if (!lease.blocks.isEmpty()) {
          leases.add(lease);
        } else if (object.charged.isEmpty() && object.inFlight.isEmpty()) {
          objects.forget(object);
          evicted.add(object);
          if (object == created) {
            // nothing was granted: no files to create
            object.creating = false;
            inFlightCondition.signalAll();
            created = null;
          }
        }
        range = BlockRanges.describe(version, object, firstBlock, endBlock, lease);
      } finally {
        lock.unlock();
      }
      if (created != null) {
        createFiles(created);
      }
      if (charged != null) {
        // journaled (outside the lock, after the object's journal exists) before the grant is answered:
        // after a crash, the grantee may still write these blocks
        CachedObject granted = grantedObject;
        int[] blocks = charged;
        files.journalCharged(granted, blocks);
      }
      return range;
    } finally {
      deleteFiles(evicted);
    }
  }

  /**
   * Creates the journal and data file of {@code object}, outside the lock (a slow disk delays only
   * the readers of that object, which wait in {@link #awaitCreated}). A cache that cannot create its
   * files is broken: the object is dropped and the caller counts it, falls back to the source, or
   * fails the read in strict mode.
   */
  private void createFiles(CachedObject object) throws IOException {
    try {
      files.create(object);
    } catch (IOException | RuntimeException e) {
      boolean current;
      lock.lock();
      try {
        object.creating = false;
        current = objects.get(object.version) == object;
        if (current) {
          objects.drop(object);
        }
        inFlightCondition.signalAll();
      } finally {
        lock.unlock();
      }
      deleteFiles(List.of(object));
      if (!current) {
        // invalidated or cleared meanwhile, and its files with it: not a broken cache; the caller's writes find no file
        LOG.debug("{} was dropped while its cache file {} was created", object.version, object.dataFile, e);
        return;
      }
      throw new IOException("Cannot create cache file " + object.dataFile + " for " + object.version, e);
    }
    boolean droppedMeanwhile;
    lock.lock();
    try {
      object.creating = false;
      droppedMeanwhile = objects.get(object.version) != object;
      inFlightCondition.signalAll();
    } finally {
      lock.unlock();
    }
    if (droppedMeanwhile) {
      // invalidated or cleared while its files were made: its deletion may have run before they existed
      deleteFiles(List.of(object));
    }
  }

  /** Waits (briefly: one file creation) until another caller has created {@code object}'s files; false if it did not in time. */
  @GuardedBy("lock")
  private boolean awaitCreated(CachedObject object) throws IOException {
    long remaining = CREATE_WAIT_NANOS;
    try {
      while (object.creating && remaining > 0) {
        remaining = inFlightCondition.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for the cache file of " + object.version);
    }
    return !object.creating;
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
    if (blocks.length != crc32c.length) {
      throw new IllegalArgumentException("blocks and crc32c differ in length: " + blocks.length + " vs " + crc32c.length);
    }
    Lease lease;
    lock.lock();
    try {
      lease = leases.get(leaseId);
      if (lease == null) {
        space.fencedDone(leaseId, blocks); // its object was dropped: the writer is done with these blocks
        return 0;
      }
    } finally {
      lock.unlock();
    }
    CachedObject object = lease.object;
    // a block outside the object cannot be held by the lease: it is skipped below
    boolean[] verified = files.verify(object, blocks, crc32c);
    // journaled before they are published in memory, outside the lock (a slow disk delays this writer only);
    // a block journaled but then not published (its lease expired meanwhile) holds verified bytes of the version
    files.journalVerified(object, blocks, crc32c, verified);
    lock.lock();
    try {
      if (leases.get(leaseId) != lease) {
        space.fencedDone(leaseId, blocks);
        return 0; // expired, or its object was dropped, while the bytes were checked
      }
      int published = 0;
      int[] accepted = new int[blocks.length];
      int[] acceptedCrcs = new int[blocks.length];
      for (int i = 0; i < blocks.length; i++) {
        int block = blocks[i];
        if (block < 0 || block >= object.crc32c.length || !lease.blocks.get(block)) {
          continue;
        }
        lease.blocks.clear(block);
        object.inFlight.remove(block);
        if (verified[i]) {
          accepted[published] = block;
          acceptedCrcs[published++] = crc32c[i];
        } else {
          refusedBlocks++;
          LOG.warn("Refused to publish block {} of {}: the bytes in {} do not match the CRC32C {} its writer claimed", block, object.version,
              object.dataFile, Integer.toHexString(crc32c[i]));
        }
      }
      for (int i = 0; i < published; i++) {
        object.published.set(accepted[i]);
        object.crc32c[accepted[i]] = acceptedCrcs[i];
      }
      insight.filled(object.version, accepted, published);
      leases.finishIfDone(lease);
      inFlightChanged();
      return published;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void abort(long leaseId, int[] blocks, boolean written) {
    List<CachedObject> forgotten = new ArrayList<>();
    List<Integer> charged = new ArrayList<>();
    CachedObject object;
    lock.lock();
    try {
      Lease lease = leases.get(leaseId);
      if (lease == null) {
        space.fencedDone(leaseId, blocks);
        return;
      }
      object = lease.object;
      for (int block : blocks) {
        if (lease.blocks.get(block)) {
          lease.blocks.clear(block);
          object.inFlight.remove(block);
          if (!written) {
            space.uncharge(object, block);
          } else {
            charged.add(block);
          }
        }
      }
      leases.finishIfDone(lease);
      if (object.charged.isEmpty() && !object.pinned() && objects.get(object.version) == object) {
        // nothing cached, written or being fetched (e.g. every fetch failed): keep no metadata for it
        objects.forget(object);
        forgotten.add(object);
      }
      inFlightChanged();
    } finally {
      lock.unlock();
    }
    if (!charged.isEmpty()) {
      files.journalCharged(object, charged.stream().mapToInt(Integer::intValue).toArray());
    }
    deleteFiles(forgotten);
  }

  /**
   * The state of blocks {@code [firstBlock, endBlock)} once none of them is in flight, or at the
   * deadline, whichever comes first, without a waiting thread: the daemon answers its clients' waits
   * with it, so a waiting client never occupies a server worker. The future completes on the
   * service's scheduler thread, never under the metadata lock. At most {@value SettleWaiters#MAX_WAITERS}
   * waits are pending at once; beyond that a wait is answered at once with the current state.
   */
  public CompletableFuture<BlockRange> whenSettled(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) {
    checkRange(version, firstBlock, endBlock);
    lock.lock();
    try {
      expireLeases();
      CachedObject object = objects.get(version);
      if (object == null || !BlockRanges.anyInFlight(object, firstBlock, endBlock) || timeoutMillis <= 0 || waiters.full()) {
        return CompletableFuture.completedFuture(BlockRanges.describe(version, object, firstBlock, endBlock, null));
      }
      SettleWaiters.Waiter waiter = waiters.add(version, firstBlock, endBlock, timeoutMillis);
      waiters.scheduleRecheck(nextRecheckNanos(waiter, object));
      return waiter.future();
    } finally {
      lock.unlock();
    }
  }

  /** When {@code waiter} must be looked at again without a change: its deadline, or the first expiry of a lease it waits for. */
  @GuardedBy("lock")
  private long nextRecheckNanos(SettleWaiters.Waiter waiter, CachedObject object) {
    long at = waiter.deadlineNanos();
    for (Map.Entry<Integer, Long> entry : object.inFlight.entrySet()) {
      Lease lease = leases.get(entry.getValue());
      if (lease != null && entry.getKey() >= waiter.first() && entry.getKey() < waiter.end()) {
        at = Math.min(at, lease.deadlineNanos);
      }
    }
    return at;
  }

  /** Runs on the waiters' scheduler when a deadline or a lease expiry may have settled a waiter. */
  private void recheckWaiters() {
    lock.lock();
    try {
      waiters.rechecking();
      expireLeases();
      settleWaiters();
      long next = Long.MAX_VALUE;
      for (SettleWaiters.Waiter waiter : waiters.pending()) {
        CachedObject object = objects.get(waiter.version());
        if (object != null) {
          next = Math.min(next, nextRecheckNanos(waiter, object));
        }
      }
      if (next != Long.MAX_VALUE) {
        waiters.scheduleRecheck(next);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Answers the waiters whose blocks left the in-flight state or whose deadline passed. */
  @GuardedBy("lock")
  private void settleWaiters() {
    // Error Prone assumes a lambda runs later, without the lock; SettleWaiters.settle runs this one
    // at once, on this thread, which holds the lock
    @SuppressWarnings("GuardedBy")
    SettleWaiters.Settlement settlement = (waiter, now) -> {
      CachedObject object = objects.get(waiter.version());
      boolean settled = object == null || !BlockRanges.anyInFlight(object, waiter.first(), waiter.end()) || now - waiter.deadlineNanos() >= 0;
      return settled ? BlockRanges.describe(waiter.version(), object, waiter.first(), waiter.end(), null) : null;
    };
    waiters.settle(settlement);
  }

  /** Wakes blocking waiters and answers settled {@link #whenSettled} waiters: blocks left the in-flight state. */
  @GuardedBy("lock")
  private void inFlightChanged() {
    inFlightCondition.signalAll();
    if (!waiters.isEmpty()) {
      settleWaiters();
    }
  }

  @Override
  public BlockRange awaitInFlight(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) throws InterruptedException {
    checkRange(version, firstBlock, endBlock);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    lock.lock();
    try {
      while (true) {
        expireLeases();
        CachedObject object = objects.get(version);
        long remaining = deadline - System.nanoTime();
        if (object == null || !BlockRanges.anyInFlight(object, firstBlock, endBlock) || remaining <= 0) {
          return BlockRanges.describe(version, object, firstBlock, endBlock, null);
        }
        long untilExpiry = Long.MAX_VALUE;
        for (long leaseId : object.inFlight.values()) {
          Lease lease = leases.get(leaseId);
          if (lease != null) {
            untilExpiry = Math.min(untilExpiry, lease.deadlineNanos - nanoClock.getAsLong());
          }
        }
        inFlightCondition.awaitNanos(Math.max(1, Math.min(remaining, untilExpiry)));
      }
    } finally {
      lock.unlock();
    }
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
    CachedObject object;
    int crc;
    lock.lock();
    try {
      object = objects.get(version);
      if (object == null || block < 0 || block >= object.crc32c.length || !object.published.get(block)) {
        return;
      }
      crc = object.crc32c[block];
    } finally {
      lock.unlock();
    }
    DataFiles.BlockCheck check = files.check(object, block, crc);
    if (check == DataFiles.BlockCheck.INTACT) {
      LOG.debug("A reader reported block {} of {} failed, but {} holds it intact (the reader's file was dropped meanwhile)", block, version,
          object.dataFile);
      return;
    }
    List<CachedObject> dropped = new ArrayList<>();
    boolean unpublished = false;
    lock.lock();
    try {
      if (objects.get(version) != object || !object.published.get(block) || object.crc32c[block] != crc) {
        return;
      }
      if (check == DataFiles.BlockCheck.GONE) {
        LOG.warn("Dropping {}: its data file {} is missing or was truncated outside the cache", version, object.dataFile);
        objects.drop(object);
        dropped.add(object);
      } else {
        object.published.clear(block);
        object.crc32c[block] = 0;
        unpublished = true;
        LOG.warn("Dropped corrupt block {} of {} in {}", block, version, object.dataFile);
      }
    } finally {
      lock.unlock();
    }
    if (unpublished) {
      files.journalUnpublished(object, block);
    }
    deleteFiles(dropped);
  }

  @Override
  public void invalidate(ObjectVersion version) {
    List<CachedObject> dropped = new ArrayList<>();
    lock.lock();
    try {
      CachedObject object = objects.get(version);
      if (object != null) {
        objects.drop(object);
        dropped.add(object);
      }
    } finally {
      lock.unlock();
    }
    deleteFiles(dropped);
  }

  @Override
  public int invalidatePath(String path) {
    List<CachedObject> dropped = new ArrayList<>();
    lock.lock();
    try {
      for (CachedObject object : List.copyOf(objects.all())) {
        if (object.version.path().equals(path)) {
          objects.drop(object);
          dropped.add(object);
        }
      }
    } finally {
      lock.unlock();
    }
    deleteFiles(dropped);
    return dropped.size();
  }

  @Override
  public List<CachedFile> topFiles(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    int size = Math.min(limit, MAX_TOP_FILES);
    Comparator<CachedFile> bySize = Comparator.comparingLong(CachedFile::chargedBytes);
    PriorityQueue<CachedFile> largest = new PriorityQueue<>(size + 1, bySize);
    lock.lock();
    try {
      for (CachedObject object : objects.all()) {
        if (largest.size() == size && object.chargedBytes <= largest.peek().chargedBytes()) {
          continue;
        }
        largest.add(new CachedFile(object.version, object.dataFile.toString(), object.chargedBytes, object.published.cardinality(),
            object.crc32c.length));
        if (largest.size() > size) {
          largest.poll();
        }
      }
    } finally {
      lock.unlock();
    }
    List<CachedFile> result = new ArrayList<>(largest);
    result.sort(bySize.reversed());
    return result;
  }

  @Override
  public int clear() {
    List<CachedObject> dropped;
    lock.lock();
    try {
      dropped = List.copyOf(objects.all());
      for (CachedObject object : dropped) {
        objects.drop(object);
      }
    } finally {
      lock.unlock();
    }
    deleteFiles(dropped);
    LOG.info("Cleared the cache: dropped {} object versions", dropped.size());
    return dropped.size();
  }

  /** Per-table counters with the bytes each table holds now, and the working-set estimate. */
  @Override
  public CacheInsightReport insight() {
    List<CachedBytes> cached = new ArrayList<>();
    lock.lock();
    try {
      for (CachedObject object : objects.all()) {
        long bytes = publishedBytes(object);
        if (bytes > 0) {
          cached.add(new CachedBytes(object.version.path(), bytes));
        }
      }
    } finally {
      lock.unlock();
    }
    return insight.report(cached);
  }

  @GuardedBy("lock")
  private long publishedBytes(CachedObject object) {
    long bytes = (long) object.published.cardinality() * blockSize;
    int last = object.crc32c.length - 1;
    if (last >= 0 && object.published.get(last)) {
      bytes -= blockSize - object.blockLength(last);
    }
    return bytes;
  }

  @Override
  public CacheUsage usage() {
    lock.lock();
    try {
      return space.usage(objects.evictions(), objects.admissionRejections());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      leases.clear();
      for (CachedObject object : objects.all()) {
        object.inFlight.clear();
      }
      inFlightChanged();
      waiters.close();
    } finally {
      lock.unlock();
    }
    idleExpiry.close();
  }

  @GuardedBy("lock")
  private CachedObject touch(ObjectVersion version, int firstBlock) {
    CachedObject object = objects.get(version);
    if (object != null) {
      space.touch(object, firstBlock);
      if (idleExpiry.enabled()) {
        // only idle expiry reads it: no clock read on every status when it is off
        object.lastUsedMillis = idleExpiry.nowMillis();
        object.useUnsaved = true;
      }
    }
    return object;
  }

  @GuardedBy("lock")
  private void expireLeases() {
    space.expireFences();
    List<Lease> expired = leases.expire(nanoClock.getAsLong());
    for (Lease lease : expired) {
      LOG.warn("Lease {} on {} expired with {} blocks unfetched", lease.id, lease.object.version, lease.blocks.cardinality());
      lease.blocks.stream().forEach(lease.object.inFlight::remove);
    }
    if (!expired.isEmpty()) {
      inFlightChanged();
    }
  }

  private void checkRange(ObjectVersion version, int firstBlock, int endBlock) {
    if ((long) endBlock - firstBlock > MAX_BLOCKS_PER_CALL) {
      throw new IllegalArgumentException("Block range [" + firstBlock + ", " + endBlock + ") of " + version + " names more than "
          + MAX_BLOCKS_PER_CALL + " blocks, the most one call may name");
    }
    int blocks = version.blockCount(blockSize);
    if (firstBlock < 0 || endBlock > blocks || firstBlock > endBlock) {
      throw new IllegalArgumentException("Block range [" + firstBlock + ", " + endBlock + ") outside " + version
          + " which has " + blocks + " blocks of " + blockSize + " bytes");
    }
  }

  /** Deletes the files of dropped objects (see {@link ObjectFiles#delete}), then gives back their charge. */
  private void deleteFiles(List<CachedObject> dropped) {
    for (CachedObject object : dropped) {
      boolean gone = files.delete(object);
      lock.lock();
      try {
        space.released(object, gone);
      } finally {
        lock.unlock();
      }
    }
  }
}
