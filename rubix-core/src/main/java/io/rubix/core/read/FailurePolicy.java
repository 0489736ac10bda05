package io.rubix.core.read;

import io.rubix.core.config.CacheConfig;
import java.io.IOException;

/**
 * What a cache-side failure (a cache file that cannot be read or written, a metadata service that
 * fails) does to a read, per {@code rubix.cache.strict.mode}: by default the read falls back to the
 * source; in strict mode it fails, and cache writes happen in the reader's thread so that their
 * failures reach it. The one place the read path asks about strict mode.
 */
enum FailurePolicy {
  FALL_BACK,
  FAIL;

  static FailurePolicy of(CacheConfig config) {
    return config.strictMode() ? FAIL : FALL_BACK;
  }

  /** Whether blocks fetched for a read are written and committed before the read returns (else on the writer executor). */
  boolean writesBeforeReturning() {
    return this == FAIL;
  }

  /**
   * Returns when the caller should fall back to the source; throws {@code failure} (wrapped with
   * {@code message} when it is not an {@link IOException}) when the read must fail instead.
   */
  void handle(Exception failure, String message) throws IOException {
    if (this == FAIL) {
      throw failure instanceof IOException io ? io : new IOException(message, failure);
    }
  }
}
