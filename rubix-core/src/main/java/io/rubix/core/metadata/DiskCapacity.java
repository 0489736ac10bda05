package io.rubix.core.metadata;

import io.rubix.core.config.CacheConfig;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The cap of one cache directory: the smaller of {@code rubix.cache.max.size} and {@code rubix.cache.usage.percentage} of its disk. */
public final class DiskCapacity {
  private static final Logger LOG = LoggerFactory.getLogger(DiskCapacity.class);

  private DiskCapacity() {}

  public static long of(CacheConfig config, Path dir) {
    long byPercentage;
    try {
      Path existing = dir.toAbsolutePath();
      while (existing != null && !Files.exists(existing)) {
        existing = existing.getParent();
      }
      FileStore store = Files.getFileStore(existing == null ? Path.of("/") : existing);
      byPercentage = store.getTotalSpace() / 100 * config.usagePercentage();
    } catch (IOException e) {
      LOG.warn("Cannot read the size of the disk holding {}; caching nothing there", dir, e);
      byPercentage = 0;
    }
    return config.maxSizePerDisk() > 0 ? Math.min(config.maxSizePerDisk(), byPercentage) : byPercentage;
  }
}
