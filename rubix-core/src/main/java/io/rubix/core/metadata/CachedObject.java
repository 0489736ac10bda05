package io.rubix.core.metadata;

import io.rubix.core.metadata.eviction.Resident;
import io.rubix.core.metadata.eviction.Segment;
import io.rubix.spi.ObjectVersion;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Metadata of one cached object version: which blocks are published and their CRC32Cs, which blocks
 * may have bytes on disk (and so are charged against the disk's cap), and which are being fetched.
 * Not thread-safe: guarded by the owning service's lock.
 */
final class CachedObject implements Resident {
  final ObjectVersion version;
  final int disk;
  final Path dataFile;
  final int blockSize;
  final BitSet published = new BitSet();
  final BitSet charged = new BitSet();
  /** Block index to the id of the lease fetching it. */
  final Map<Integer, Long> inFlight = new HashMap<>();
  final int[] crc32c;
  long chargedBytes;
  /** Its charge after it was dropped, until its files are truncated (see {@link DiskSpace#releasingBytes}). */
  long releasingBytes;
  /** Its journal and data file are being created, outside the lock, by the caller that started caching it. */
  boolean creating;
  /** After it was dropped: its files were truncated ({@link #filesGone}), or could not be, and the attempt is over. */
  boolean filesReleased;
  boolean filesGone;
  /**
   * Recovered after a restart: its blocks charged but not published, which grantees of the previous
   * run may still be writing, until one lease timeout after recovery (see {@link FencedWrites}).
   */
  Lease recoveredWrites;
  /** When it was last read (status or acquire), wall clock: for idle expiry ({@link IdleExpiry}). */
  long lastUsedMillis;
  /** Read since a sweep last journaled {@link #lastUsedMillis}. */
  boolean useUnsaved;
  /** The quota of the path rule it is charged to, or null when its rule has none (set before it is charged). */
  RuleSpace rule;
  /** Where it is in its disk's eviction order (see {@link io.rubix.core.metadata.eviction.Segments}); set before it is created. */
  Segment segment = Segment.PROBATION;
  /** TinyLFU: the first block of the read of this object seen most often recently, whose frequency is the object's. */
  int hotBlock;

  CachedObject(ObjectVersion version, int disk, Path dataFile, int blockSize) {
    this.version = version;
    this.disk = disk;
    this.dataFile = dataFile;
    this.blockSize = blockSize;
    this.crc32c = new int[version.blockCount(blockSize)];
  }

  int blockLength(int block) {
    return version.blockLength(block, blockSize);
  }

  /** What {@code blocks} of this object are charged. */
  long chargeOf(BitSet blocks) {
    long bytes = 0;
    for (int block = blocks.nextSetBit(0); block >= 0 && block < crc32c.length; block = blocks.nextSetBit(block + 1)) {
      bytes += DiskCharge.ofBlock(blockLength(block));
    }
    return bytes;
  }

  @Override
  public boolean pinned() {
    return !inFlight.isEmpty();
  }

  @Override
  public ObjectVersion version() {
    return version;
  }

  @Override
  public long chargedBytes() {
    return chargedBytes;
  }

  @Override
  public Segment segment() {
    return segment;
  }

  @Override
  public void segment(Segment segment) {
    this.segment = segment;
  }

  @Override
  public int hotBlock() {
    return hotBlock;
  }

  @Override
  public void hotBlock(int block) {
    this.hotBlock = block;
  }
}
