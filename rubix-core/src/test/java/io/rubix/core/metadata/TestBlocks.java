package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;

/** Writes granted blocks the way a reader does, so that the service's commit check finds their bytes. */
public final class TestBlocks {
  private TestBlocks() {}

  /** The bytes test blocks hold: {@code block % 255 + 1} repeated (never all zeros, so a block never written does not match them). */
  public static byte[] content(BlockRange range, int blockSize, int block) {
    byte[] bytes = new byte[range.version().blockLength(block, blockSize)];
    Arrays.fill(bytes, (byte) (block % 255 + 1));
    return bytes;
  }

  /** Writes {@code blocks} of {@code range} into its data file, if it still exists, and returns their CRC32Cs. */
  public static int[] write(BlockRange range, int blockSize, int... blocks) throws IOException {
    int[] crcs = new int[blocks.length];
    for (int i = 0; i < blocks.length; i++) {
      CRC32C crc = new CRC32C();
      crc.update(content(range, blockSize, blocks[i]));
      crcs[i] = (int) crc.getValue();
    }
    try (FileChannel channel = FileChannel.open(Path.of(range.dataFile()), StandardOpenOption.WRITE)) {
      for (int block : blocks) {
        channel.write(ByteBuffer.wrap(content(range, blockSize, block)), (long) block * blockSize);
      }
    } catch (NoSuchFileException evicted) {
      // a writer whose object was dropped meanwhile: its commit publishes nothing
    }
    return crcs;
  }

  /** Writes and commits {@code blocks} of {@code range}; returns what the commit published. */
  public static int commit(CacheMetadataService service, BlockRange range, int blockSize, int... blocks) throws IOException {
    return service.commit(range.leaseId(), blocks, write(range, blockSize, blocks));
  }

  /**
   * What a reader does: asks, and writes and commits the blocks of {@code [first, end)} it was granted;
   * {@code afterGrant} (told which grant) checks the service while the grant is held.
   */
  public static void read(CacheMetadataService service, ObjectVersion version, int first, int end, int blockSize, Consumer<String> afterGrant)
      throws IOException {
    if (service.status(version, first, end).allCached(first, end)) {
      return;
    }
    BlockRange lease = service.acquire(version, first, end);
    afterGrant.accept("grant of " + version.path() + " [" + first + ", " + end + ")");
    int[] granted = IntStream.range(first, end).filter(b -> lease.state(b) == BlockState.GRANTED).toArray();
    if (granted.length > 0) {
      commit(service, lease, blockSize, granted);
    }
  }
}
