package io.rubix.spi.metadata;

/** What the cache metadata service says about one block of an object version. */
public enum BlockState {
  /** Not cached and not being fetched; returned by status calls only. */
  MISSING,
  /** Published: the bytes are in the data file and their CRC32C is known. */
  CACHED,
  /** Granted to the caller by {@link CacheMetadataService#acquire}: the caller fetches, writes and commits it. */
  GRANTED,
  /** Being fetched under someone else's lease; wait for it or read the source. */
  IN_FLIGHT,
  /** The cache cannot take this block now (no space or the cache is unusable); read the source. */
  DENIED;

  private static final BlockState[] VALUES = values();

  public static BlockState fromCode(int code) {
    if (code < 0 || code >= VALUES.length) {
      throw new IllegalArgumentException("Unknown block state code: " + code);
    }
    return VALUES[code];
  }

  public byte code() {
    return (byte) ordinal();
  }
}
