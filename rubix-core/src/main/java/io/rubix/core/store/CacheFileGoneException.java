package io.rubix.core.store;

import java.nio.file.NoSuchFileException;

/**
 * A cache data file that is no longer at its live length (see {@link io.rubix.spi.metadata.DataFileLayout}):
 * dropped (evicted, invalidated, cleared) while this JVM held it open, or truncated by someone else.
 * Not corruption: the bytes are re-read from the source, never failing the read, and the metadata
 * service is told, which checks the file itself and drops it only if it is its current one.
 */
public final class CacheFileGoneException extends NoSuchFileException {
  private static final long serialVersionUID = 1L;

  public CacheFileGoneException(String file, String reason) {
    super(file, null, reason);
  }
}
