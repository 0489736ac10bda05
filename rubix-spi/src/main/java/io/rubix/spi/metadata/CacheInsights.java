package io.rubix.spi.metadata;

import java.io.IOException;

/**
 * A {@link CacheMetadataService} that reports what it saw per path prefix and estimates the working
 * set (an optional ability, like {@link CacheAdministration}). Implementations are thread-safe.
 */
public interface CacheInsights {
  /** Counters per table and the working-set estimate, as of now. */
  CacheInsightReport insight() throws IOException;
}
