package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.CacheRules;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.config.InsightConfig;
import io.rubix.core.metadata.journal.MetadataJournal;
import io.rubix.spi.config.CacheKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;

/**
 * How an {@link InProcessMetadataService} is set up: its cache roots and their caps, and everything
 * else with the default of its configuration key. Built with {@link #builder}, or from configuration
 * with {@link #of}; each value is checked when it is set.
 *
 * @param blockSize block size in bytes
 * @param roots one cache root directory per disk
 * @param capacities the cap in bytes of each root, same order
 * @param leaseTimeout how long a grant is held before it is given to someone else ({@code rubix.cache.lease.timeout})
 * @param nanoClock time source for leases and waits (System::nanoTime outside tests)
 * @param journal where the metadata persists; the service starts from what it recovers under {@code roots}
 * @param maxObjects most object versions tracked ({@code rubix.cache.max.objects}): one more evicts the least recently used
 * @param evictionPolicy how room is made ({@code rubix.cache.eviction.policy})
 * @param expireAfterIdle versions unread this long are dropped ({@code rubix.cache.expire.after.idle}; zero: never)
 * @param wallMillis the wall clock idle expiry reads (System::currentTimeMillis outside tests)
 * @param rules the path rules ({@code rubix.cache.rules}): no grant for an excluded path, quotas never exceeded
 *     (a percentage quota is a share of the sum of {@code capacities})
 * @param insight how per-table counters and the working-set estimate are kept
 */
public record ServiceOptions(int blockSize, List<Path> roots, List<Long> capacities, Duration leaseTimeout, LongSupplier nanoClock,
    MetadataJournal journal, long maxObjects, EvictionPolicy evictionPolicy, Duration expireAfterIdle, LongSupplier wallMillis,
    CacheRules rules, InsightConfig insight) {
  /** {@code rubix.cache.max.objects} when the caller does not say. */
  public static final long DEFAULT_MAX_OBJECTS = Long.parseLong(CacheKeys.MAX_OBJECTS.defaultValue());
  /** {@code rubix.cache.lease.timeout} when the caller does not say. */
  public static final Duration DEFAULT_LEASE_TIMEOUT =
      new ConfigReader(new Configuration(false)).getDuration(CacheKeys.LEASE_TIMEOUT, Duration.ZERO);

  public ServiceOptions {
    if (blockSize <= 0) {
      throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
    }
    roots = List.copyOf(requireNonNull(roots, "roots is null"));
    capacities = List.copyOf(requireNonNull(capacities, "capacities is null"));
    if (roots.size() != capacities.size()) {
      throw new IllegalArgumentException(roots.size() + " cache roots but " + capacities.size() + " capacities");
    }
    requireNonNull(leaseTimeout, "leaseTimeout is null");
    requireNonNull(nanoClock, "nanoClock is null");
    requireNonNull(journal, "journal is null");
    if (maxObjects < 1) {
      throw new IllegalArgumentException("maxObjects must be positive: " + maxObjects);
    }
    requireNonNull(evictionPolicy, "evictionPolicy is null");
    requireNonNull(expireAfterIdle, "expireAfterIdle is null");
    requireNonNull(wallMillis, "wallMillis is null");
    requireNonNull(rules, "rules is null");
    requireNonNull(insight, "insight is null");
  }

  /** The options {@code config} sets for cache roots {@code roots}, each capped by {@link DiskCapacity}. */
  public static ServiceOptions of(CacheConfig config, List<Path> roots, MetadataJournal journal) {
    return builder(config.blockSize(), roots, roots.stream().map(root -> DiskCapacity.of(config, root)).toList())
        .leaseTimeout(config.leaseTimeout())
        .journal(journal)
        .maxObjects(config.maxObjects())
        .evictionPolicy(config.evictionPolicy())
        .expireAfterIdle(config.expireAfterIdle())
        .rules(config.rules())
        .insight(config.insight())
        .build();
  }

  /** Options for {@code roots} capped at {@code capacities}, the rest at their defaults (no journal, LRU, no rules, no expiry). */
  public static Builder builder(int blockSize, List<Path> roots, List<Long> capacities) {
    return new Builder(blockSize, roots, capacities);
  }

  /** The sum of the caps, at most {@link Long#MAX_VALUE}. */
  long totalCapacity() {
    return capacities.stream().mapToLong(Long::longValue).reduce(0, (a, b) -> a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b);
  }

  /** Sets one option at a time; {@link #build} checks them all. */
  public static final class Builder {
    private final int blockSize;
    private final List<Path> roots;
    private final List<Long> capacities;
    private Duration leaseTimeout = DEFAULT_LEASE_TIMEOUT;
    private LongSupplier nanoClock = System::nanoTime;
    private MetadataJournal journal = MetadataJournal.NONE;
    private long maxObjects = DEFAULT_MAX_OBJECTS;
    private EvictionPolicy evictionPolicy = EvictionPolicy.LRU;
    private Duration expireAfterIdle = Duration.ZERO;
    private LongSupplier wallMillis = System::currentTimeMillis;
    private CacheRules rules = CacheRules.NONE;
    private InsightConfig insight = InsightConfig.defaults();

    private Builder(int blockSize, List<Path> roots, List<Long> capacities) {
      this.blockSize = blockSize;
      this.roots = requireNonNull(roots, "roots is null");
      this.capacities = requireNonNull(capacities, "capacities is null");
    }

    public Builder leaseTimeout(Duration leaseTimeout) {
      this.leaseTimeout = requireNonNull(leaseTimeout, "leaseTimeout is null");
      return this;
    }

    public Builder nanoClock(LongSupplier nanoClock) {
      this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
      return this;
    }

    public Builder journal(MetadataJournal journal) {
      this.journal = requireNonNull(journal, "journal is null");
      return this;
    }

    public Builder maxObjects(long maxObjects) {
      if (maxObjects < 1) {
        throw new IllegalArgumentException("maxObjects must be positive: " + maxObjects);
      }
      this.maxObjects = maxObjects;
      return this;
    }

    public Builder evictionPolicy(EvictionPolicy evictionPolicy) {
      this.evictionPolicy = requireNonNull(evictionPolicy, "evictionPolicy is null");
      return this;
    }

    /** Versions unread for {@code expireAfterIdle} (zero: never) expire, by the wall clock at {@link InProcessMetadataService#expireIdle}. */
    public Builder expireAfterIdle(Duration expireAfterIdle) {
      this.expireAfterIdle = requireNonNull(expireAfterIdle, "expireAfterIdle is null");
      return this;
    }

    public Builder wallMillis(LongSupplier wallMillis) {
      this.wallMillis = requireNonNull(wallMillis, "wallMillis is null");
      return this;
    }

    public Builder rules(CacheRules rules) {
      this.rules = requireNonNull(rules, "rules is null");
      return this;
    }

    public Builder insight(InsightConfig insight) {
      this.insight = requireNonNull(insight, "insight is null");
      return this;
    }

    public ServiceOptions build() {
      return new ServiceOptions(blockSize, roots, capacities, leaseTimeout, nanoClock, journal, maxObjects, evictionPolicy, expireAfterIdle,
          wallMillis, rules, insight);
    }
  }
}
