package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.util.Arrays;

/**
 * The answers of the metadata service: what state blocks of an object are in, as a {@link BlockRange}.
 * Reads the objects it is given and changes nothing; its caller holds the service's lock while it
 * reads them.
 */
final class BlockRanges {
  private BlockRanges() {}

  /**
   * {@code [firstBlock, endBlock)} of {@code version}, whose metadata is {@code object} (null: not
   * cached): published blocks are {@code CACHED}, the blocks of {@code lease} (null: none, a status
   * answer) {@code GRANTED}, others' fetches {@code IN_FLIGHT}, and the rest {@code MISSING}, or
   * {@code DENIED} in the answer to an acquire.
   */
  static BlockRange describe(ObjectVersion version, CachedObject object, int firstBlock, int endBlock, Lease lease) {
    int count = endBlock - firstBlock;
    byte[] states = new byte[count];
    int[] crcs = new int[count];
    if (object == null) {
      Arrays.fill(states, lease == null ? BlockState.MISSING.code() : BlockState.DENIED.code());
      return new BlockRange(version, "", firstBlock, states, crcs, 0);
    }
    // run by run: a word per 64 blocks finds each run of published blocks, copied whole, and each run of others
    byte notPublished = lease == null ? BlockState.MISSING.code() : BlockState.DENIED.code();
    boolean perBlock = lease != null || !object.inFlight.isEmpty();
    int block = firstBlock;
    while (block < endBlock) {
      int published = Math.min(endBlock, object.published.nextClearBit(block));
      if (published > block) {
        Arrays.fill(states, block - firstBlock, published - firstBlock, BlockState.CACHED.code());
        System.arraycopy(object.crc32c, block, crcs, block - firstBlock, published - block);
        block = published;
        continue;
      }
      int next = object.published.nextSetBit(block);
      int others = next < 0 ? endBlock : Math.min(endBlock, next);
      if (!perBlock) {
        Arrays.fill(states, block - firstBlock, others - firstBlock, notPublished);
        block = others;
        continue;
      }
      for (; block < others; block++) {
        if (lease != null && lease.blocks.get(block)) {
          states[block - firstBlock] = BlockState.GRANTED.code();
        } else if (object.inFlight.containsKey(block)) {
          states[block - firstBlock] = BlockState.IN_FLIGHT.code();
        } else {
          states[block - firstBlock] = notPublished;
        }
      }
    }
    long leaseId = lease == null || lease.blocks.isEmpty() ? 0 : lease.id;
    return new BlockRange(version, object.dataFile.toString(), firstBlock, states, crcs, leaseId);
  }

  /** {@code [firstBlock, endBlock)} of {@code version}, all {@code DENIED}: an acquire that granted nothing and made no object. */
  static BlockRange denied(ObjectVersion version, int firstBlock, int endBlock) {
    byte[] states = new byte[endBlock - firstBlock];
    Arrays.fill(states, BlockState.DENIED.code());
    return new BlockRange(version, "", firstBlock, states, new int[states.length], 0);
  }

  /** Whether any block of {@code [firstBlock, endBlock)} of {@code object} is being fetched. */
  static boolean anyInFlight(CachedObject object, int firstBlock, int endBlock) {
    for (int block : object.inFlight.keySet()) {
      if (block >= firstBlock && block < endBlock) {
        return true;
      }
    }
    return false;
  }
}
