package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

/**
 * A {@link BlockAdmission} in block numbers: whether this node caches a block of a session's version.
 * {@link BlockAdmission#admitsAll()} is asked once, here. Immutable and thread-safe.
 */
final class Admission {
  private final BlockAdmission admission;
  private final int blockSize;
  private final boolean all;

  Admission(BlockAdmission admission, int blockSize) {
    this.admission = requireNonNull(admission, "admission is null");
    this.blockSize = blockSize;
    this.all = admission.admitsAll();
  }

  /** Whether this node caches every block of every object. */
  boolean all() {
    return all;
  }

  /** Whether this node caches {@code block} of the session's version. */
  boolean admits(ReadSession s, int block) {
    return all || admission.admits(s.version.path(), (long) block * blockSize);
  }
}
