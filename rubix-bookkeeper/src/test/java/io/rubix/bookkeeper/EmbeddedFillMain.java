package io.rubix.bookkeeper;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.metadata.EmbeddedServices;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;

/**
 * An embedded-mode JVM filling its cache: takes this JVM's embedded service for a cache directory
 * (as a caching file system would), tries to cache {@code objects} objects of {@code blocks} blocks,
 * prints {@code FILLED <blocks granted>} and holds the service until a line arrives on stdin.
 *
 * <p>Usage: {@code EmbeddedFillMain <cache dir> <block size> <cap bytes> <name prefix> <objects> <blocks>}
 */
public final class EmbeddedFillMain {
  private EmbeddedFillMain() {}

  public static void main(String[] args) throws Exception {
    CacheConfig config = config(Path.of(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]));
    try (EmbeddedServices.Handle handle = EmbeddedServices.acquire(config)) {
      int granted = fill(handle.service(), args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]));
      System.out.println("FILLED " + granted);
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
  }

  static CacheConfig config(Path dir, int blockSize, long cap) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", dir.toString());
    conf.set("rubix.cache.block.size", Integer.toString(blockSize));
    conf.set("rubix.cache.max.size", Long.toString(cap));
    return CacheConfig.from(conf);
  }

  /** Caches what the service grants of {@code objects} objects, writing and committing every granted block; returns how many. */
  static int fill(CacheMetadataService service, String prefix, int objects, int blocks) throws Exception {
    int blockSize = service.blockSize();
    byte[] bytes = new byte[blockSize];
    Arrays.fill(bytes, (byte) 0x5a);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    int checksum = (int) crc.getValue();
    int granted = 0;
    for (int i = 0; i < objects; i++) {
      ObjectVersion version = new ObjectVersion("s3a://bucket/" + prefix + "-" + i, (long) blocks * blockSize, 1, "etag");
      BlockRange range = service.acquire(version, 0, blocks);
      int[] mine = new int[blocks];
      int count = 0;
      for (int b = 0; b < blocks; b++) {
        if (range.state(b) == BlockState.GRANTED) {
          mine[count++] = b;
        }
      }
      if (count == 0) {
        continue;
      }
      try (FileChannel channel = FileChannel.open(Path.of(range.dataFile()), StandardOpenOption.WRITE)) {
        for (int k = 0; k < count; k++) {
          ByteBuffer buffer = ByteBuffer.wrap(bytes);
          long position = (long) mine[k] * blockSize;
          while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
          }
        }
      }
      int[] crcs = new int[count];
      Arrays.fill(crcs, checksum);
      service.commit(range.leaseId(), Arrays.copyOf(mine, count), crcs);
      granted += count;
    }
    return granted;
  }
}
