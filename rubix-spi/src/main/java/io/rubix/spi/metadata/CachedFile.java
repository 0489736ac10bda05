package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;

/**
 * What a cache holds of one object version.
 *
 * @param version the object version
 * @param dataFile the local sparse file holding its blocks
 * @param chargedBytes bytes charged against the disk's cap for it (published blocks and blocks that
 *     may have bytes on disk)
 * @param cachedBlocks blocks published (readable from the cache)
 * @param blocks blocks of the whole object
 */
public record CachedFile(ObjectVersion version, String dataFile, long chargedBytes, int cachedBlocks, int blocks) {
  public CachedFile {
    requireNonNull(version, "version is null");
    requireNonNull(dataFile, "dataFile is null");
    if (chargedBytes < 0 || cachedBlocks < 0 || blocks < cachedBlocks) {
      throw new IllegalArgumentException("Inconsistent cached file " + version + ": chargedBytes " + chargedBytes
          + ", cachedBlocks " + cachedBlocks + ", blocks " + blocks);
    }
  }
}
