package io.rubix.core.read.session;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;

/**
 * A {@link BlockAdmission} in block numbers: whether this node caches a block of a session's version.
 * {@link BlockAdmission#admitsAll()} is asked once, here. Immutable and thread-safe.
 */
public final class Admission {
  private final BlockAdmission admission;
  private final int blockSize;
  private final boolean all;

  public Admission(BlockAdmission admission, int blockSize) {
    this.admission = requireNonNull(admission, "admission is null");
    this.blockSize = blockSize;
    this.all = admission.admitsAll();
  }

  /** Whether this node caches every block of every object. */
  public boolean all() {
    return all;
  }

  /** Whether this node caches {@code block} of the session's version. */
  public boolean admits(ReadSession s, int block) {
    return all || admission.admits(s.version.path(), (long) block * blockSize);
  }

  /**
   * Whether a recent status still answers a read of {@code [first, end)}: each block is cached, or (with
   * {@code peers}) is not cached and not admitted here, so this node never caches it and asking again
   * would tell nothing new: a stream reading splits other nodes own asks its BookKeeper once per window,
   * not per read.
   */
  public boolean cachedOrOwnedElsewhere(ReadSession s, BlockRange status, int first, int end, boolean peers) {
    if (status.allCached(first, end)) {
      return true;
    }
    if (!peers || all) {
      return false;
    }
    for (int b = first; b < end; b++) {
      if (status.state(b) != BlockState.CACHED && (status.state(b) != BlockState.MISSING || admits(s, b))) {
        return false;
      }
    }
    return true;
  }
}
