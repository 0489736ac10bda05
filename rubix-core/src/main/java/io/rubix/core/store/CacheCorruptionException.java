package io.rubix.core.store;

import java.io.IOException;

/** Cached bytes that do not match their recorded CRC32C, or a cache file shorter than its published blocks. */
public final class CacheCorruptionException extends IOException {
  private static final long serialVersionUID = 1L;
  private final int block;

  public CacheCorruptionException(String message, int block) {
    super(message);
    this.block = block;
  }

  public int block() {
    return block;
  }
}
