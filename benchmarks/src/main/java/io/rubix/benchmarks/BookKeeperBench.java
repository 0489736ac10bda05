package io.rubix.benchmarks;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/** Shared setup of the BookKeeper benchmarks. */
final class BookKeeperBench {
  private BookKeeperBench() {}

  /**
   * Copies {@code -Drubix.*} system properties (passed with {@code -jvmArgsAppend}) into {@code conf},
   * for tuning runs, e.g. {@code -Drubix.network.server.worker.threads=4}.
   */
  static void applySystemProperties(Configuration conf) {
    System.getProperties().stringPropertyNames().stream()
        .filter(key -> key.startsWith("rubix.") && !key.startsWith("rubix.bench."))
        .forEach(key -> conf.set(key, System.getProperty(key)));
  }

  /**
   * Publishes blocks {@code [first, end)} of {@code version} (metadata only: acquire and commit with
   * made-up checksums, no data is written) and returns how many were published.
   */
  static int publish(CacheMetadataService service, ObjectVersion version, int first, int end) throws IOException {
    BlockRange grant = service.acquire(version, first, end);
    int[] blocks = new int[end - first];
    int[] crcs = new int[end - first];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = first + i;
      crcs[i] = 0x9e3779b9 * (first + i + 1);
    }
    int published = service.commit(grant.leaseId(), blocks, crcs);
    if (published != blocks.length) {
      throw new IllegalStateException("Published " + published + " of blocks [" + first + ", " + end + ") of " + version);
    }
    return published;
  }
}
