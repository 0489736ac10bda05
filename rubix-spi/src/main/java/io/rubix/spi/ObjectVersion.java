package io.rubix.spi;

import static java.util.Objects.requireNonNull;

/**
 * The identity of one immutable version of a remote object. Cached bytes belong to a version, never
 * to a bare path: when the object changes, its length, modification time or ETag change with it,
 * and blocks cached for the old version are never served for the new one.
 *
 * @param path the fully qualified remote path, e.g. {@code s3a://bucket/warehouse/t/part-0.orc}
 * @param length the object's length in bytes
 * @param modificationTime the object's modification time in milliseconds since the epoch
 * @param etag the store's entity tag or version id, or the empty string when the store has none
 */
public record ObjectVersion(String path, long length, long modificationTime, String etag) {
  public ObjectVersion {
    requireNonNull(path, "path is null");
    requireNonNull(etag, "etag is null");
    if (path.isEmpty()) {
      throw new IllegalArgumentException("path is empty");
    }
    if (length < 0) {
      throw new IllegalArgumentException("length is negative: " + length + " for " + path);
    }
  }

  /**
   * The version of an object its readers trust never to be rewritten (paths with {@code immutable}
   * freshness, Iceberg's files): known by its path and length alone, no modification time, no ETag.
   */
  public static ObjectVersion ofPathAndLength(String path, long length) {
    return new ObjectVersion(path, length, 0, "");
  }

  /** Whether this version is known by its path and length alone ({@link #ofPathAndLength}). */
  public boolean byPathAndLength() {
    return modificationTime == 0 && etag.isEmpty();
  }

  /** The number of blocks of {@code blockSize} bytes that hold this version; the last may be short. */
  public int blockCount(int blockSize) {
    long blocks = (length + blockSize - 1) / blockSize;
    if (blocks > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("Object too large for block size " + blockSize + ": " + this);
    }
    return (int) blocks;
  }

  /** The length in bytes of block {@code block}, which is shorter than {@code blockSize} only at the end. */
  public int blockLength(int block, int blockSize) {
    long start = (long) block * blockSize;
    if (block < 0 || start >= length) {
      throw new IndexOutOfBoundsException("Block " + block + " outside " + this + " with block size " + blockSize);
    }
    return (int) Math.min(blockSize, length - start);
  }

  /** A stable text form used to derive cache file names: every field, unambiguously separated. */
  public String canonicalKey() {
    return path.length() + ":" + path + "|" + length + "|" + modificationTime + "|" + etag;
  }

  /**
   * Whether this version's path is {@code path} or lies under it ({@code path} as a directory: the path
   * continues it after a {@code /}); a sibling that only starts with its name ({@code path2}) is not.
   */
  public boolean isAtOrUnder(String path) {
    return this.path.equals(path) || this.path.startsWith(path.endsWith("/") ? path : path + "/");
  }
}
