package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** Space accounting of a cache, one entry per cache directory (disk). */
public record CacheUsage(List<Disk> disks, long evictions) {
  public CacheUsage {
    disks = List.copyOf(requireNonNull(disks, "disks is null"));
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
