package io.rubix.core.metadata;

/**
 * What cached data costs on disk, which is what the cap bounds: a file system allocates whole units
 * (4 KiB on ext4 and XFS), so a block is charged its length rounded up to a unit, and every object
 * is charged one more unit for its inode, directory entry and journal. 10,000 one-byte objects are
 * so charged 80 MiB, not 10 KB.
 */
final class DiskCharge {
  static final int ALLOCATION_UNIT = 4096;
  static final long OBJECT_OVERHEAD = ALLOCATION_UNIT;

  private DiskCharge() {}

  /** The charge of a block {@code length} bytes long. */
  static long ofBlock(int length) {
    return ((long) length + ALLOCATION_UNIT - 1) / ALLOCATION_UNIT * ALLOCATION_UNIT;
  }

  /** The charge of a file {@code length} bytes long that recovery found on disk. */
  static long ofFile(long length) {
    return OBJECT_OVERHEAD + (Math.max(0, length) + ALLOCATION_UNIT - 1) / ALLOCATION_UNIT * ALLOCATION_UNIT;
  }
}
