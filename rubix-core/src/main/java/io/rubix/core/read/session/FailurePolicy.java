package io.rubix.core.read.session;

import io.rubix.core.client.BookKeeperUnavailableException;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.stats.CacheCounter;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a cache-side failure (a cache file that cannot be read or written, a metadata service that
 * fails) does to a read, per {@code rubix.cache.strict.mode}: by default the read falls back to the
 * source; in strict mode it fails, and cache writes happen in the reader's thread so that their
 * failures reach it. The one place the read path asks about strict mode.
 *
 * <p>Design: immutable; any thread. The read classes call it where a failure happens and, when it
 * returns, read the source themselves: it never reads anything.
 */
public enum FailurePolicy {
  FALL_BACK,
  FAIL;

  private static final Logger LOG = LoggerFactory.getLogger(FailurePolicy.class);

  public static FailurePolicy of(CacheConfig config) {
    return config.strictMode() ? FAIL : FALL_BACK;
  }

  /** Whether a cache-side failure lets reads go on from the source (not strict mode). */
  public boolean fallsBack() {
    return this == FALL_BACK;
  }

  /** Whether blocks fetched for a read are written and committed before the read returns (else on the writer executor). */
  public boolean writesBeforeReturning() {
    return this == FAIL;
  }

  /**
   * Returns when the caller should fall back to the source; throws {@code failure} (wrapped with
   * {@code message} when it is not an {@link IOException}) when the read must fail instead.
   */
  public void handle(Exception failure, String message) throws IOException {
    if (this == FAIL) {
      throw failure instanceof IOException io ? io : new IOException(message, failure);
    }
  }

  /**
   * The metadata service failed for a read of {@code s}: counts it ({@code FALLBACK_METADATA}), logs
   * it, and returns when the caller should read the source instead (see {@link #handle}).
   */
  public void metadataFailure(ReadSession s, Exception failure) throws IOException {
    s.stats.add(CacheCounter.FALLBACK_METADATA, 1);
    if (failure instanceof BookKeeperUnavailableException) {
      // the client logs each failure once and backs off; every read during the backoff would repeat it
      LOG.debug("BookKeeper unavailable for {}; reading the source", s.version.path(), failure);
    } else {
      LOG.warn("Cache metadata service failed for {}; reading the source", s.version.path(), failure);
    }
    handle(failure, "Cache metadata service failed for " + s.version.path());
  }
}
