// The BookKeeper service: the per-node cache metadata daemon every reading JVM talks to.
// Calls mirror io.rubix.spi.metadata.CacheMetadataService; see its Javadoc for the protocol.
// Regenerate the Java code with ./generate.sh (Debian's thrift-compiler 0.17).

namespace java io.rubix.spi.thrift

/** One immutable version of a remote object: the key all cached bytes belong to. */
struct TObjectVersion {
  1: required string path,
  2: required i64 length,
  3: required i64 modificationTime,
  4: required string etag,
}

/** States of blocks [firstBlock, firstBlock + len(states)); crc32c holds one big-endian int32 per block. */
struct TBlockRange {
  1: required string dataFile,
  2: required i32 firstBlock,
  3: required binary states,
  4: required binary crc32c,
  5: required i64 leaseId,
}

struct TDiskUsage {
  1: required string directory,
  2: required i64 capacityBytes,
  3: required i64 usedBytes,
  4: required i64 reservedBytes,
  5: required i32 objects,
}

struct TCacheUsage {
  1: required list<TDiskUsage> disks,
  2: required i64 evictions,
  /** Grants the eviction policy refused (tinylfu); absent from daemons before it existed. */
  3: optional i64 admissionRejections,
}

struct TServiceInfo {
  1: required i32 protocolVersion,
  2: required i32 blockSize,
  3: required string nodeId,
  4: required i64 startedAtMillis,
}

/** What the cache holds of one object version (an answer of topFiles). */
struct TCachedFile {
  1: required TObjectVersion version,
  2: required string dataFile,
  3: required i64 chargedBytes,
  4: required i32 cachedBlocks,
  5: required i32 blocks,
}

/** Counters of one path prefix ("table") as the daemon saw them; see io.rubix.spi.metadata.TableStats. */
struct TTableStats {
  1: required string prefix,
  2: required i64 hitBlocks,
  3: required i64 missBlocks,
  4: required i64 cachedBytes,
  5: required i64 grantedBytes,
  6: required i64 filledBytes,
  7: required i64 evictions,
  8: required i64 weightError,
}

/** The working-set estimate; see io.rubix.spi.metadata.WorkingSetEstimate. */
struct TWorkingSet {
  1: required i64 windowMillis,
  2: required i64 distinctBytes,
  3: required i64 capacityBytes,
  4: required double sampleRate,
  5: required i64 accessedBytes,
  6: required double observedHitRatio,
  7: required double shadowHitRatioHalf,
  8: required double shadowHitRatioOne,
  9: required double shadowHitRatioDouble,
  10: required i64 sampledAccesses,
}

/** Per-table counters (top prefixes plus the rest as other) and the working-set estimate (an answer of insight). */
struct TCacheInsight {
  1: required list<TTableStats> tables,
  2: required TTableStats other,
  3: required TWorkingSet workingSet,
}

/** A request the daemon refused (bad range, unknown lease); never a transport failure. */
exception TCacheException {
  1: required string message,
}

service BookKeeperService {
  TServiceInfo info(),

  /**
   * readBlock: the block in [firstBlock, endBlock) the caller reads from now; it reports the blocks it
   * reads (reportReads), so the daemon's statistics count none of the answer. -1, what a client from
   * before this field sends: the caller reads from firstBlock and every cached block named counts as read.
   */
  TBlockRange status(1: TObjectVersion version, 2: i32 firstBlock, 3: i32 endBlock, 4: i32 readBlock = -1) throws (1: TCacheException e),

  TBlockRange acquire(1: TObjectVersion version, 2: i32 firstBlock, 3: i32 endBlock) throws (1: TCacheException e),

  /**
   * Blocks of version a reader read from the cache (for the daemon's statistics only), at most
   * MAX_BLOCKS_PER_CALL, each inside the object. A daemon without this call answers UNKNOWN_METHOD.
   */
  void reportReads(1: TObjectVersion version, 2: list<i32> blocks) throws (1: TCacheException e),

  i32 commit(1: i64 leaseId, 2: list<i32> blocks, 3: list<i32> crc32c) throws (1: TCacheException e),

  void abort(1: i64 leaseId, 2: list<i32> blocks, 3: bool written) throws (1: TCacheException e),

  TBlockRange awaitInFlight(1: TObjectVersion version, 2: i32 firstBlock, 3: i32 endBlock, 4: i64 timeoutMillis)
      throws (1: TCacheException e),

  void reportCorrupt(1: TObjectVersion version, 2: i32 block) throws (1: TCacheException e),

  void invalidate(1: TObjectVersion version) throws (1: TCacheException e),

  i32 invalidatePath(1: string path) throws (1: TCacheException e),

  /**
   * The length of the one cached version of path with modificationTime 0 and an empty etag, with at
   * least one block cached; -1 when there is none or more than one. A daemon without this call answers
   * UNKNOWN_METHOD.
   */
  i64 immutableLength(1: string path) throws (1: TCacheException e),

  TCacheUsage usage(),

  map<string, i64> stats(),

  /** The object versions charging the most bytes, largest first; limit is capped by the daemon. */
  list<TCachedFile> topFiles(1: i32 limit) throws (1: TCacheException e),

  /** Unpublishes and deletes everything cached; returns how many object versions were dropped. */
  i32 clear() throws (1: TCacheException e),

  /**
   * Adds what a reading JVM counted since its last report (its rubix_* read counters: hit, miss,
   * source and peer bytes, fallbacks by cause) to the node's totals, which the daemon exports as
   * rubix_engines_*. Only known counter names and values in [0, 2^48) are accepted, at most 64 per
   * call; a daemon without this call answers UNKNOWN_METHOD, which a client takes as "do not report".
   */
  void reportCounters(1: map<string, i64> deltas) throws (1: TCacheException e),

  /**
   * Per-table counters and the working-set estimate. Added after protocol 1 without a version bump:
   * older clients never call it; a daemon older than it answers TApplicationException UNKNOWN_METHOD.
   */
  TCacheInsight insight() throws (1: TCacheException e),
}
