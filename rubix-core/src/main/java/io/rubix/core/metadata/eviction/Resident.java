package io.rubix.core.metadata.eviction;

import io.rubix.spi.ObjectVersion;

/**
 * What an eviction policy knows of a cached object: its version, what it is charged, whether it may
 * be evicted at all, where it sits in its disk's {@link Segments}, and the block its reads start at most
 * often (TinyLFU's frequency key). The metadata service's objects implement it; the policy never sees
 * their blocks, files or leases.
 */
public interface Resident {
  ObjectVersion version();

  /** Bytes charged against its disk's cap. */
  long chargedBytes();

  /** Being fetched into: never evicted. */
  boolean pinned();

  Segment segment();

  void segment(Segment segment);

  /** TinyLFU: the first block of the read of this object seen most often recently. */
  int hotBlock();

  void hotBlock(int block);
}
