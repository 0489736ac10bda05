package io.rubix.hadoop;

import io.rubix.core.CacheEngine;

/**
 * A Hadoop file system whose reads go through a RubiX {@link CacheEngine}: {@link CachingFileSystem}
 * and {@link CachingS3AFileSystem} with their subclasses. Lets tools find the cache of a file system
 * without loading the classes of every scheme (S3A may be absent).
 */
public interface HasCacheEngine {
  /** The cache engine, or null when caching is disabled ({@code rubix.cache.enabled=false}) or the file system is closed. */
  CacheEngine cacheEngine();
}
