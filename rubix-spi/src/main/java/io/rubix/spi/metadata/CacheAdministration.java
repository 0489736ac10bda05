package io.rubix.spi.metadata;

import java.io.IOException;
import java.util.List;

/**
 * Operator calls a {@link CacheMetadataService} may support in addition to the read protocol: what
 * the cache holds, and dropping all of it. Readers never need them. Implementations are thread-safe.
 */
public interface CacheAdministration {
  /** Most entries {@link #topFiles} returns, whatever the caller asks for. */
  int MAX_TOP_FILES = 1000;

  /**
   * The object versions charging the most bytes, largest first, at most {@code limit} (capped at
   * {@link #MAX_TOP_FILES}).
   *
   * @throws IllegalArgumentException when {@code limit} is not positive
   */
  List<CachedFile> topFiles(int limit) throws IOException;

  /**
   * Unpublishes and deletes every cached object version, as {@link CacheMetadataService#invalidate}
   * would one by one; blocks being fetched are not published. Returns how many versions were dropped.
   */
  int clear() throws IOException;
}
