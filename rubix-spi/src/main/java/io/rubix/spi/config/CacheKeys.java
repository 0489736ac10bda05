package io.rubix.spi.config;

import java.util.List;

/** Keys of the cache itself: where blocks live, how big they are, how fresh they must be. */
public final class CacheKeys {
  public static final ConfigKey ENABLED = new ConfigKey("rubix.cache.enabled", "true",
      "Master switch. When false every read goes straight to the wrapped file system.");
  public static final ConfigKey BLOCK_SIZE = new ConfigKey("rubix.cache.block.size", "64k",
      "Size of a cache block (bytes, or with a k/m/g suffix). Reads are split into blocks; each block is fetched once. 4k to 256m. A miss fetches whole blocks: smaller blocks fetch less around the column chunks ORC and Parquet readers ask for, larger ones cost less metadata. Every JVM and BookKeeper sharing a cache must use the same value. See docs/operations.md.");
  public static final ConfigKey DIRS = new ConfigKey("rubix.cache.dirs", null,
      "Comma-separated cache directories, one per local disk. Takes precedence over rubix.cache.dirprefix.list.");
  public static final ConfigKey DIR_PREFIX_LIST = new ConfigKey("rubix.cache.dirprefix.list", null,
      "RubiX-compatible alternative to rubix.cache.dirs: comma-separated prefixes; for each prefix P and i in [0, rubix.cache.max.disks) the directory P<i><rubix.cache.dirsuffix> is used when P<i> exists.");
  public static final ConfigKey DIR_SUFFIX = new ConfigKey("rubix.cache.dirsuffix", "/fcache/",
      "Suffix appended to each prefix+disk index when rubix.cache.dirprefix.list is used.");
  public static final ConfigKey MAX_DISKS = new ConfigKey("rubix.cache.max.disks", "5",
      "Number of disk indexes tried per prefix of rubix.cache.dirprefix.list.");
  public static final ConfigKey MAX_SIZE = new ConfigKey("rubix.cache.max.size", null,
      "Hard cap on cache bytes per cache directory (bytes, or with a k/m/g/t suffix). When both this and rubix.cache.usage.percentage apply, the smaller wins.");
  public static final ConfigKey MAX_OBJECTS = new ConfigKey("rubix.cache.max.objects", "1000000",
      "Most object versions one metadata service (the BookKeeper, or an embedded JVM) tracks, 1 to 100000000; at the bound, caching a new one evicts the least recently used.");
  public static final ConfigKey EVICTION_POLICY = new ConfigKey("rubix.cache.eviction.policy", "lru",
      "Which object versions make room when a cache directory is full: lru (the least recently used) or tinylfu (W-TinyLFU as in Caffeine: new objects enter a window, which a hill climber sizes from 0 to 100% of the directory as the byte hit ratio moves, starting at 1%; beyond it, one stays only if it was read more often recently than the least recently used object past the window it would evict, else its blocks are read from the source uncached and counted in rubix_cache_admission_rejections; objects read again are protected from newcomers up to 80% of the rest: a one-pass scan larger than the cache then does not evict data that is read again and again). See docs/operations.md.");
  public static final ConfigKey EXPIRE_AFTER_IDLE = new ConfigKey("rubix.cache.expire.after.idle", "0s",
      "Drops an object version nobody has read for this long (a duration such as 12h or 7d; 0s: never), so a node does not keep serving, and holding space for, partitions a table no longer reads. Applied by the metadata service (the BookKeeper, or an embedded JVM) about every tenth of this time (at least every second, at most every 10 minutes) and at start; the last read of each object is kept in its journal file's modification time, so a restart goes on counting from it, the downtime included. Counted in rubix_cache_expirations. See docs/operations.md.");
  public static final ConfigKey RULES = new ConfigKey("rubix.cache.rules", null,
      "Comma-separated names of path rules, in the order they are tried: the first rule with a pattern matching an object's path decides whether it is cached (its action) and which quota it is charged to. Each name (letters, digits, _ and -) needs rubix.cache.rule.<name>.paths. Objects matching no rule follow rubix.cache.rules.default. Example and metrics: docs/operations.md.");
  public static final ConfigKey RULES_DEFAULT = new ConfigKey("rubix.cache.rules.default", "include",
      "What happens to objects whose path matches no rule of rubix.cache.rules: include (cached, under the per-directory caps only) or exclude (never cached: read from the source).");
  public static final ConfigKey RULE_PATHS = new ConfigKey("rubix.cache.rule.<name>.paths", null,
      "Comma-separated path globs of rule <name>: * matches within one path segment, ** (a whole segment) any number of segments, ? one character; a pattern ending in / matches everything below it. A pattern with a scheme (s3a://lake/warehouse/dim_*/**) is matched against the fully qualified path, one starting with / against the path without scheme and authority. No [, ], {, } or \\. Required for every rule listed.");
  public static final ConfigKey RULE_ACTION = new ConfigKey("rubix.cache.rule.<name>.action", "include",
      "include (objects of rule <name> are cached) or exclude (they are never cached: no grant, no space, reads go to the source; the daemon refuses grants for them whatever a client asks).");
  public static final ConfigKey RULE_FRESHNESS = new ConfigKey("rubix.cache.rule.<name>.freshness", null,
      "Optional freshness of objects of include rule <name>, instead of rubix.cache.freshness: strict, ttl or immutable (same meanings). Data files of Iceberg and Delta tables are never rewritten, so immutable is as correct as strict for them and costs no request per open; a table's log files that are overwritten in place (Delta's _delta_log/_last_checkpoint) stay strict. Not allowed on an exclude rule.");
  public static final ConfigKey RULE_QUOTA = new ConfigKey("rubix.cache.rule.<name>.quota", null,
      "Optional cap on the bytes charged to objects of include rule <name>, over all cache directories of the node: a size (20g) or a percentage of the node's total cap (15%). A grant that would exceed it first evicts the least recently used objects of the same rule, then is denied (the read goes to the source). Not allowed on an exclude rule.");
  public static final ConfigKey USAGE_PERCENTAGE = new ConfigKey("rubix.cache.usage.percentage", "80",
      "Hard cap per cache directory as a percentage (1-100) of the capacity of the disk that holds it.");
  public static final ConfigKey FRESHNESS = new ConfigKey("rubix.cache.freshness", "strict",
      "How an open learns the object's current version: strict (ask the source on every open unless the engine passed a FileStatus through openFile()), ttl (trust a status seen within rubix.cache.freshness.ttl), immutable (never re-check a path once seen). In ttl and immutable modes getFileStatus of a file whose status is trusted answers that status (the version an open reads) without asking the source: ORC asks for a file's length right after opening it, so a warm read then makes no request at all. Writes, renames and deletes through the file system forget the statuses of the paths they touch (a directory's: all under it).");
  public static final ConfigKey FRESHNESS_TTL = new ConfigKey("rubix.cache.freshness.ttl", "60s",
      "How long a file status is trusted in ttl mode (duration, e.g. 30s, 5m).");
  public static final ConfigKey STRICT_MODE = new ConfigKey("rubix.cache.strict.mode", "false",
      "When true, cache-side failures (disk full, unwritable directory, checksum mismatch, metadata error) fail the read instead of falling back to the source.");
  public static final ConfigKey CHECKSUM_VERIFY = new ConfigKey("rubix.cache.checksum.verify", "first-read",
      "When cached blocks are checked against their CRC32C: first-read (each block the first time it is read through an open cache file in this JVM: catches torn, truncated and corrupted files after a crash or restart), always (every read verifies the whole blocks it touches: a 64 KiB read within one 256 KiB block checksums 4x its bytes), never. See docs/operations.md.");
  public static final ConfigKey OPEN_FILES_MAX = new ConfigKey("rubix.cache.open.files.max", "512",
      "Most cache files kept open at once in one JVM (least recently used are closed first).");
  public static final ConfigKey LEASE_TIMEOUT = new ConfigKey("rubix.cache.lease.timeout", "60s",
      "How long a reader may hold blocks it was granted to fetch before they are given to another reader.");
  public static final ConfigKey INFLIGHT_POLICY = new ConfigKey("rubix.cache.inflight.policy", "wait",
      "What a reader does with a block another reader is fetching: wait (for up to rubix.cache.inflight.wait.timeout, then read the source) or source (read the source at once).");
  public static final ConfigKey INFLIGHT_WAIT_TIMEOUT = new ConfigKey("rubix.cache.inflight.wait.timeout", "30s",
      "Longest wait for a block another reader is fetching.");
  public static final ConfigKey FETCH_THREADS = new ConfigKey("rubix.cache.fetch.threads", "8",
      "Threads per JVM that fetch read-ahead blocks from the source in parallel.");
  public static final ConfigKey READAHEAD_MAX = new ConfigKey("rubix.cache.readahead.max", "32m",
      "Largest read-ahead window of a sequential stream (bytes with suffix, 0 to 1g; 0 disables read-ahead). The default is rubix.cache.fetch.threads (8) times rubix.cache.fetch.chunk.size (4m): enough requests to keep every fetch thread busy. Read-ahead starts only when a stream read continues the previous one (never for a first read, a read after a jump, a read that continues one of at least rubix.cache.fetch.chunk.size (a reader that asks for that much names its range: Parquet reads adjacent column chunks in 8 MiB buffers), or the ranges of a vectored read); the window starts at twice the bytes read in a row (at least one block), doubles as the reader moves on to each new block and is kept full, one chunk-sized request at a time. See docs/operations.md.");
  public static final ConfigKey FETCH_TAIL = new ConfigKey("rubix.cache.fetch.tail.size", "64k",
      "When a miss reaches into the last bytes of an object, its fetch covers this many of them (bytes with suffix; 0 disables), in the same GET: ORC and Parquet readers read a footer guess first and the rest of the footer next, and the second read then needs no round trip of its own.");
  public static final ConfigKey FETCH_WHOLE_MAX = new ConfigKey("rubix.cache.fetch.whole.max", "1m",
      "Objects up to this size are fetched whole at their first miss, in the same GET (bytes with suffix; 0 disables). Larger values save round trips on small files but fetch columns a columnar reader never asks for.");
  public static final ConfigKey FETCH_CHUNK = new ConfigKey("rubix.cache.fetch.chunk.size", "4m",
      "Largest single ranged GET; longer runs of missing blocks are split into chunks of this size fetched in parallel.");
  public static final ConfigKey UNCACHED_READAHEAD_MEMORY = new ConfigKey("rubix.cache.uncached.readahead.memory", "128m",
      "Memory per file system instance for bytes a sequential stream reads ahead from the source that the cache does not keep (spent rule quota, admission refused, full disk, metadata service down, blocks owned by another node and not served by it), so that such a stream reads like a plain stream with read-ahead instead of one request per read call (bytes with suffix; 0 disables: each such read then reads its own bytes from the source). Read ahead with the same window and request sizes as cached reads; a stream holds at most its window, and bytes it has passed are dropped.");
  public static final ConfigKey TAIL_MEMORY = new ConfigKey("rubix.cache.tail.memory.size", "16m",
      "Memory per file system instance for the tails (the last rubix.cache.fetch.tail.size bytes) of recently read cached objects, so the footer reads of ORC and Parquet readers do not touch the disk (bytes with suffix; 0 disables).");
  public static final ConfigKey STATUS_CACHE_ENTRIES = new ConfigKey("rubix.cache.status.cache.entries", "10000",
      "Paths whose file status is remembered in ttl and immutable freshness modes.");
  public static final ConfigKey JMX_ENABLED = new ConfigKey("rubix.cache.jmx.enabled", "true",
      "Register a JMX bean (io.rubix:type=Cache) with this file system's cache statistics.");
  public static final ConfigKey WRAPPED_IMPL = new ConfigKey("rubix.fs.<scheme>.wrapped.impl", null,
      "File system class a delegating caching file system wraps for <scheme> (gs, abfs, abfss, hdfs, file, ...). Defaults to the usual Hadoop class of that scheme.");
  public static final ConfigKey S3A_SOURCE_STREAM = new ConfigKey("rubix.s3a.source.stream.type", "classic",
      "S3A input stream used by the caching S3A file systems to fetch blocks (fs.s3a.input.stream.type of the wrapped S3A). classic makes exactly the ranged GETs the cache asks for; analytics and prefetch keep their own in-memory caches.");

  private CacheKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(ENABLED, BLOCK_SIZE, DIRS, DIR_PREFIX_LIST, DIR_SUFFIX, MAX_DISKS, MAX_SIZE, MAX_OBJECTS, EVICTION_POLICY, EXPIRE_AFTER_IDLE,
        RULES, RULES_DEFAULT, RULE_PATHS, RULE_ACTION, RULE_QUOTA, RULE_FRESHNESS, USAGE_PERCENTAGE,
        FRESHNESS, FRESHNESS_TTL, STRICT_MODE, CHECKSUM_VERIFY, OPEN_FILES_MAX, LEASE_TIMEOUT, INFLIGHT_POLICY,
        INFLIGHT_WAIT_TIMEOUT, FETCH_THREADS, READAHEAD_MAX, FETCH_CHUNK, FETCH_TAIL, FETCH_WHOLE_MAX, TAIL_MEMORY, UNCACHED_READAHEAD_MEMORY, STATUS_CACHE_ENTRIES, JMX_ENABLED,
        WRAPPED_IMPL, S3A_SOURCE_STREAM);
  }
}
