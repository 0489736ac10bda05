package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;

/**
 * The state of the blocks {@code [firstBlock, firstBlock + states.length)} of one object version, as
 * answered by {@link CacheMetadataService#status} or {@link CacheMetadataService#acquire}.
 *
 * <p>Instances are snapshots: a block reported {@link BlockState#CACHED} may be evicted later, so a
 * reader must treat a failed or mismatching cache read as a miss. The arrays are owned by this
 * object and must not be modified.
 *
 * @param version the object version the blocks belong to
 * @param dataFile absolute path of the local sparse file that holds the blocks (may not exist yet
 *     when no block is cached or granted)
 * @param firstBlock index of the first block described
 * @param states one state code per block, see {@link BlockState#code()}
 * @param crc32c for each {@link BlockState#CACHED} block its CRC32C, otherwise 0
 * @param leaseId the lease under which {@link BlockState#GRANTED} blocks are to be committed, or 0
 */
public record BlockRange(ObjectVersion version, String dataFile, int firstBlock, byte[] states, int[] crc32c, long leaseId) {
  public BlockRange {
    requireNonNull(version, "version is null");
    requireNonNull(dataFile, "dataFile is null");
    requireNonNull(states, "states is null");
    requireNonNull(crc32c, "crc32c is null");
    if (states.length != crc32c.length) {
      throw new IllegalArgumentException("states and crc32c differ in length: " + states.length + " vs " + crc32c.length);
    }
    if (firstBlock < 0) {
      throw new IllegalArgumentException("firstBlock is negative: " + firstBlock);
    }
  }

  public int endBlock() {
    return firstBlock + states.length;
  }

  public boolean covers(int first, int end) {
    return first >= firstBlock && end <= endBlock();
  }

  public BlockState state(int block) {
    return BlockState.fromCode(states[block - firstBlock]);
  }

  public int crc32c(int block) {
    return crc32c[block - firstBlock];
  }

  /** Whether every block in {@code [first, end)} is cached; the range must be covered. */
  public boolean allCached(int first, int end) {
    byte cached = BlockState.CACHED.code();
    for (int b = first; b < end; b++) {
      if (states[b - firstBlock] != cached) {
        return false;
      }
    }
    return true;
  }
}
