package io.rubix.benchmarks;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
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
   * Publishes blocks {@code [first, end)} of {@code version}: acquires them, writes a non-zero byte
   * pattern into the data file (the service checks the bytes of every commit), and commits them.
   * Returns how many were published.
   */
  static int publish(CacheMetadataService service, ObjectVersion version, int first, int end) throws IOException {
    BlockRange grant = service.acquire(version, first, end);
    int[] blocks = new int[end - first];
    int[] crcs = new int[end - first];
    int blockSize = service.blockSize();
    try (FileChannel channel = FileChannel.open(Path.of(grant.dataFile()),
        StandardOpenOption.WRITE)) {
      for (int i = 0; i < blocks.length; i++) {
        blocks[i] = first + i;
        byte[] bytes = new byte[version.blockLength(blocks[i], blockSize)];
        Arrays.fill(bytes, (byte) (blocks[i] + 1));
        channel.write(ByteBuffer.wrap(bytes), (long) blocks[i] * blockSize);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        crcs[i] = (int) crc.getValue();
      }
    }
    int published = service.commit(grant.leaseId(), blocks, crcs);
    if (published != blocks.length) {
      throw new IllegalStateException("Published " + published + " of blocks [" + first + ", " + end + ") of " + version);
    }
    return published;
  }
}
