package io.rubix.core.store;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded cache of open {@link CacheFile}s so that a read is a positioned read on an already open
 * channel. The least recently used files are closed when the bound is reached, and a file is closed
 * as soon as its data is evicted. A reader that finds its channel closed under it retries once.
 */
public final class CacheFiles implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CacheFiles.class);

  /**
   * Data files that were evicted: a writer still fetching for an evicted or invalidated object must
   * not recreate its file, or a reader holding an older status of that object would read the new
   * file's holes as data. Names are never reused (they carry a generation), so remembering a name
   * is always right; the bound only caps memory, and only a writer that outlives this many later
   * evictions could still recreate a file.
   */
  private final Cache<Path, Boolean> evictedFiles = Caffeine.newBuilder().maximumSize(65_536).executor(Runnable::run).build();
  private final Cache<Path, CacheFile> open;
  private final ChannelOpener opener;

  public CacheFiles(int maxOpenFiles, ChannelOpener opener) {
    this.opener = requireNonNull(opener, "opener is null");
    this.open = Caffeine.newBuilder()
        .maximumSize(maxOpenFiles)
        .executor(Runnable::run)
        .removalListener((Path path, CacheFile file, RemovalCause cause) -> closeQuietly(file))
        .build();
  }

  /**
   * The open data file {@code file}, opened if needed but never created: for reading published blocks
   * and writing leased ones. A file that is gone (its object was evicted after the caller saw its
   * status) fails with {@link java.nio.file.NoSuchFileException} instead of being recreated empty,
   * which would leave an orphan file outside the space accounting and let later reads see holes. Both
   * fail with {@link EvictedCacheFileException} for a file whose object this JVM saw evicted.
   */
  public CacheFile get(Path file) throws IOException {
    try {
      return open.get(file, path -> {
        try {
          // checked inside the per-key computation, which evicted() waits for after marking the file
          if (evictedFiles.getIfPresent(path) != null) {
            throw new EvictedCacheFileException(path.toString());
          }
          return new CacheFile(path, opener.open(path));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** Closes {@code file} if it is the one cached for its path, so the next {@link #get} reopens it. */
  public void discard(CacheFile file) {
    open.asMap().remove(file.path(), file);
    closeQuietly(file);
  }

  /** The data file {@code dataFile} was dropped (told by an in-process metadata service): close it, never reopen it. */
  public void evicted(Path dataFile) {
    evictedFiles.put(dataFile, Boolean.TRUE);
    open.invalidate(dataFile);
  }

  @Override
  public void close() {
    open.invalidateAll();
    open.cleanUp();
  }

  private static void closeQuietly(CacheFile file) {
    if (file == null) {
      return;
    }
    try {
      file.close();
    } catch (IOException e) {
      LOG.debug("Closing cache file {} failed", file.path(), e);
    }
  }
}
