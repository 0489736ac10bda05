package io.rubix.core.store;

import java.nio.file.NoSuchFileException;

/** A cache data file whose object was evicted or invalidated: it is never opened or created again. */
public final class EvictedCacheFileException extends NoSuchFileException {
  private static final long serialVersionUID = 1L;

  public EvictedCacheFileException(String file) {
    super(file, null, "cache file was evicted");
  }
}
