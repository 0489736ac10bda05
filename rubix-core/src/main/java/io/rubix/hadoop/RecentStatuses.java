package io.rubix.hadoop;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.Freshness;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FileStatus;

/**
 * The file statuses {@code rubix.cache.freshness} lets a reader trust without asking the source again:
 * none in strict mode, each for {@code rubix.cache.freshness.ttl} in ttl mode, until evicted in
 * immutable mode; at most {@code rubix.cache.status.cache.entries}. Thread-safe.
 *
 * @param <K> what a status is known by (a path for opens, a version for fills)
 */
public final class RecentStatuses<K> {
  /** Null in strict mode: nothing is kept. */
  private final Cache<K, FileStatus> cache;

  private RecentStatuses(Cache<K, FileStatus> cache) {
    this.cache = cache;
  }

  public static <K> RecentStatuses<K> of(CacheConfig config) {
    requireNonNull(config, "config is null");
    return of(config, config.freshness());
  }

  /** The statuses {@code freshness} lets a reader trust, with {@code config}'s ttl and size. */
  public static <K> RecentStatuses<K> of(CacheConfig config, Freshness freshness) {
    requireNonNull(config, "config is null");
    if (freshness == Freshness.STRICT) {
      return new RecentStatuses<>(null);
    }
    Caffeine<Object, Object> builder = Caffeine.newBuilder().maximumSize(config.statusCacheEntries());
    if (freshness == Freshness.TTL) {
      builder.expireAfterWrite(config.freshnessTtl());
    }
    return new RecentStatuses<>(builder.build());
  }

  /** The status known for {@code key}, or null. */
  public FileStatus get(K key) {
    return cache == null ? null : cache.getIfPresent(key);
  }

  public void put(K key, FileStatus status) {
    if (cache != null) {
      cache.put(key, status);
    }
  }

  public void forget(K key) {
    if (cache != null) {
      cache.invalidate(key);
    }
  }

  /** Forgets every key {@code test} accepts: a walk over all remembered keys. */
  public void forgetIf(Predicate<? super K> test) {
    if (cache != null) {
      cache.asMap().keySet().removeIf(test);
    }
  }
}
