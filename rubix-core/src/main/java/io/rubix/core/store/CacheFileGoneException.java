package io.rubix.core.store;

import java.nio.file.NoSuchFileException;

/**
 * A cache data file that was dropped (evicted, invalidated, cleared) while this JVM held it open: it is
 * no longer at its live length (see {@link io.rubix.spi.metadata.DataFileLayout}). Not corruption: the
 * bytes are re-read from the source and nothing is reported to the metadata service.
 */
public final class CacheFileGoneException extends NoSuchFileException {
  private static final long serialVersionUID = 1L;

  public CacheFileGoneException(String file, String reason) {
    super(file, null, reason);
  }
}
