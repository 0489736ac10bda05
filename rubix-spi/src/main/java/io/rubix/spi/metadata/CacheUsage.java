package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Space accounting of a cache, one entry per cache directory (disk), with the objects evicted and the
 * grants the eviction policy refused (blocks, or new objects, that {@code tinylfu} did not let evict
 * an object read more often recently) since the service started.
 */
public record CacheUsage(List<Disk> disks, long evictions, long admissionRejections) {
  public CacheUsage {
    disks = List.copyOf(requireNonNull(disks, "disks is null"));
  }

  /** Usage without admission rejections (none counted, or a daemon that does not count them). */
  public CacheUsage(List<Disk> disks, long evictions) {
    this(disks, evictions, 0);
  }

  public long usedBytes() {
    return disks.stream().mapToLong(Disk::usedBytes).sum();
  }

  /**
   * @param directory the cache directory
   * @param capacityBytes the most this disk's cache may hold
   * @param usedBytes bytes charged for cached or possibly written blocks
   * @param reservedBytes bytes reserved for blocks being fetched
   * @param objects object versions with data on this disk
   */
  public record Disk(String directory, long capacityBytes, long usedBytes, long reservedBytes, int objects) {
    public Disk {
      requireNonNull(directory, "directory is null");
    }
  }
}
