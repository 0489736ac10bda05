package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.config.CacheKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The cache's configuration, read once from a Hadoop {@link Configuration} and validated: a bad value
 * fails with an {@link InvalidConfigException} naming the key, the value and what is allowed.
 */
public record CacheConfig(
    boolean enabled,
    int blockSize,
    List<Path> cacheDirs,
    long maxSizePerDisk,
    long maxObjects,
    EvictionPolicy evictionPolicy,
    Duration expireAfterIdle,
    int usagePercentage,
    Freshness freshness,
    Duration freshnessTtl,
    boolean strictMode,
    ChecksumVerification checksumVerification,
    int openFilesMax,
    Duration leaseTimeout,
    InFlightPolicy inFlightPolicy,
    Duration inFlightWaitTimeout,
    int fetchThreads,
    long readAheadMax,
    long fetchChunkSize,
    long fetchTailSize,
    long fetchWholeMax,
    long tailMemorySize,
    long uncachedReadAheadMemory,
    int statusCacheEntries,
    boolean jmxEnabled,
    CacheRules rules,
    InsightConfig insight) {

  public static final int MIN_BLOCK_SIZE = 4096;
  public static final int MAX_BLOCK_SIZE = 256 << 20;

  public CacheConfig {
    requireNonNull(cacheDirs, "cacheDirs is null");
    cacheDirs = List.copyOf(cacheDirs);
    requireNonNull(evictionPolicy, "evictionPolicy is null");
    requireNonNull(expireAfterIdle, "expireAfterIdle is null");
    requireNonNull(freshness, "freshness is null");
    requireNonNull(freshnessTtl, "freshnessTtl is null");
    requireNonNull(checksumVerification, "checksumVerification is null");
    requireNonNull(leaseTimeout, "leaseTimeout is null");
    requireNonNull(inFlightPolicy, "inFlightPolicy is null");
    requireNonNull(inFlightWaitTimeout, "inFlightWaitTimeout is null");
    requireNonNull(rules, "rules is null");
    requireNonNull(insight, "insight is null");
    if (enabled && cacheDirs.isEmpty()) {
      throw new InvalidConfigException(CacheKeys.DIRS, "", "at least one cache directory (set " + CacheKeys.DIRS.name()
          + " or " + CacheKeys.DIR_PREFIX_LIST.name() + ", or set " + CacheKeys.ENABLED.name() + "=false)");
    }
    if (maxObjects < 1) {
      throw new InvalidConfigException(CacheKeys.MAX_OBJECTS, Long.toString(maxObjects), "at least 1");
    }
    if (fetchChunkSize < blockSize) {
      throw new InvalidConfigException(CacheKeys.FETCH_CHUNK, Long.toString(fetchChunkSize),
          "at least " + CacheKeys.BLOCK_SIZE.name() + " (" + blockSize + ")");
    }
  }

  public static CacheConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    boolean enabled = reader.getBoolean(CacheKeys.ENABLED);
    int blockSize = blockSize(reader);
    return new CacheConfig(
        enabled,
        blockSize,
        cacheDirs(reader),
        reader.getBytes(CacheKeys.MAX_SIZE, blockSize, Long.MAX_VALUE),
        reader.getLong(CacheKeys.MAX_OBJECTS, 1, 100_000_000),
        reader.getEnum(CacheKeys.EVICTION_POLICY, EvictionPolicy.class),
        reader.getDuration(CacheKeys.EXPIRE_AFTER_IDLE, Duration.ZERO),
        reader.getInt(CacheKeys.USAGE_PERCENTAGE, 1, 100),
        reader.getEnum(CacheKeys.FRESHNESS, Freshness.class),
        reader.getDuration(CacheKeys.FRESHNESS_TTL, Duration.ZERO),
        reader.getBoolean(CacheKeys.STRICT_MODE),
        reader.getEnum(CacheKeys.CHECKSUM_VERIFY, ChecksumVerification.class),
        reader.getInt(CacheKeys.OPEN_FILES_MAX, 1, 1_000_000),
        reader.getDuration(CacheKeys.LEASE_TIMEOUT, Duration.ofMillis(100)),
        reader.getEnum(CacheKeys.INFLIGHT_POLICY, InFlightPolicy.class),
        reader.getDuration(CacheKeys.INFLIGHT_WAIT_TIMEOUT, Duration.ZERO),
        reader.getInt(CacheKeys.FETCH_THREADS, 1, 1024),
        reader.getBytes(CacheKeys.READAHEAD_MAX, 0, 1L << 30),
        reader.getBytes(CacheKeys.FETCH_CHUNK, 4096, 1L << 30),
        reader.getBytes(CacheKeys.FETCH_TAIL, 0, 1L << 30),
        reader.getBytes(CacheKeys.FETCH_WHOLE_MAX, 0, 1L << 30),
        reader.getBytes(CacheKeys.TAIL_MEMORY, 0, 1L << 34),
        reader.getBytes(CacheKeys.UNCACHED_READAHEAD_MEMORY, 0, 1L << 40),
        reader.getInt(CacheKeys.STATUS_CACHE_ENTRIES, 1, 100_000_000),
        reader.getBoolean(CacheKeys.JMX_ENABLED),
        CacheRules.from(reader),
        InsightConfig.from(reader));
  }

  /** {@code rubix.cache.block.size}, 4k to 256m: the one parse of it, for components that need the block size alone (a probe, a split size check). */
  public static int blockSize(Configuration conf) {
    return blockSize(new ConfigReader(conf));
  }

  private static int blockSize(ConfigReader reader) {
    return (int) reader.getBytes(CacheKeys.BLOCK_SIZE, MIN_BLOCK_SIZE, MAX_BLOCK_SIZE);
  }

  /** The configured cache directories ({@code rubix.cache.dirs}, or the prefix/suffix form), absolute and normalized. */
  public static List<Path> cacheDirs(Configuration conf) {
    return cacheDirs(new ConfigReader(conf));
  }

  private static List<Path> cacheDirs(ConfigReader reader) {
    List<String> dirs = reader.getList(CacheKeys.DIRS);
    List<Path> result = new ArrayList<>();
    if (!dirs.isEmpty()) {
      for (String dir : dirs) {
        Path path = Path.of(dir);
        if (!path.isAbsolute()) {
          throw new InvalidConfigException(CacheKeys.DIRS, dir, "absolute directory paths");
        }
        result.add(path.normalize());
      }
      return result;
    }
    String suffix = reader.raw(CacheKeys.DIR_SUFFIX);
    int maxDisks = reader.getInt(CacheKeys.MAX_DISKS, 1, 1024);
    for (String prefix : reader.getList(CacheKeys.DIR_PREFIX_LIST)) {
      for (int i = 0; i < maxDisks; i++) {
        Path disk = Path.of(prefix + i);
        if (Files.isDirectory(disk)) {
          result.add(Path.of(prefix + i + suffix).normalize());
        }
      }
    }
    return result;
  }
}
