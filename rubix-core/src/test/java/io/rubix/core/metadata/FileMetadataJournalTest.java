package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileMetadataJournalTest {
  private static final int BLOCK = 4096;
  @TempDir
  Path root;

  private InProcessMetadataService service() {
    return new InProcessMetadataService(BLOCK, List.of(root), List.of(1L << 30), Duration.ofSeconds(30), System::nanoTime,
        new FileMetadataJournal(BLOCK));
  }

  private static ObjectVersion version(String name) {
    return new ObjectVersion("s3a://bucket/" + name, 10 * BLOCK + 7, 1000, "etag-" + name);
  }

  /** Grants, writes and commits blocks [first, end) (see {@link TestBlocks}). */
  private static void cache(InProcessMetadataService service, ObjectVersion version, int first, int end) throws Exception {
    BlockRange lease = service.acquire(version, first, end);
    int[] blocks = new int[end - first];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = first + i;
    }
    assertThat(TestBlocks.commit(service, lease, BLOCK, blocks)).isEqualTo(blocks.length);
  }

  private static int crc(ObjectVersion version, int block) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    byte[] bytes = new byte[version.blockLength(block, BLOCK)];
    java.util.Arrays.fill(bytes, (byte) (block + 1));
    crc.update(bytes);
    return (int) crc.getValue();
  }

  @Test
  void restartRecoversPublishedBlocksAndChecksums() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 3);
      cache(service, a, 9, 11);
      BlockRange status = service.status(a, 1, 2);
      try (FileChannel channel = FileChannel.open(Path.of(status.dataFile()), StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(new byte[] {42}), BLOCK); // bit rot in block 1
      }
      service.reportCorrupt(a, 1);
    }
    try (InProcessMetadataService restarted = service()) {
      BlockRange status = restarted.status(a, 0, 11);
      assertThat(status.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(status.crc32c(0)).isEqualTo(crc(a, 0));
      assertThat(status.state(1)).isEqualTo(BlockState.MISSING);
      assertThat(status.state(2)).isEqualTo(BlockState.CACHED);
      assertThat(status.state(10)).isEqualTo(BlockState.CACHED);
      assertThat(status.crc32c(10)).isEqualTo(crc(a, 10));
      assertThat(restarted.recoveredBlocks()).isEqualTo(4);
      // block 1 was dropped as corrupt but its bytes stay charged until the object is evicted
      assertThat(restarted.usage().usedBytes()).isEqualTo(4L * BLOCK + 7);
      // a new object after restart never reuses a recovered file name
      cache(restarted, version("b"), 0, 1);
      assertThat(restarted.status(version("b"), 0, 1).dataFile()).isNotEqualTo(status.dataFile());
    }
  }

  @Test
  void tornLastRecordIsCutOffAndTheRestKept() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
    }
    Path meta = only(".meta");
    try (FileChannel channel = FileChannel.open(meta, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 0, 0}));
    }
    try (InProcessMetadataService restarted = service()) {
      assertThat(restarted.status(a, 0, 2).allCached(0, 2)).isTrue();
    }
  }

  @Test
  void invalidJournalDropsThatObjectAlone() throws Exception {
    ObjectVersion a = version("a");
    ObjectVersion b = version("b");
    Path metaOfA;
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
      metaOfA = FileMetadataJournal.metaFile(Path.of(service.status(a, 0, 1).dataFile()));
      cache(service, b, 0, 2);
    }
    byte[] bytes = Files.readAllBytes(metaOfA);
    bytes[10] ^= 0x5a;
    Files.write(metaOfA, bytes);
    try (InProcessMetadataService restarted = service()) {
      assertThat(restarted.status(a, 0, 2).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(restarted.status(b, 0, 2).allCached(0, 2)).isTrue();
    }
    assertThat(Files.exists(metaOfA)).isFalse();
  }

  @Test
  void publishedBlockBeyondTheDataFileIsNotRecovered() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 3);
    }
    try (FileChannel channel = FileChannel.open(only(".blocks"), StandardOpenOption.WRITE)) {
      channel.truncate(2L * BLOCK);
    }
    try (InProcessMetadataService restarted = service()) {
      BlockRange status = restarted.status(a, 0, 3);
      assertThat(status.state(1)).isEqualTo(BlockState.CACHED);
      assertThat(status.state(2)).isEqualTo(BlockState.MISSING);
    }
  }

  @Test
  void evictionRemovesJournalBeforeData() throws Exception {
    ObjectVersion a = version("a");
    try (InProcessMetadataService service = service()) {
      cache(service, a, 0, 2);
      service.invalidate(a);
    }
    try (Stream<Path> files = Files.walk(root)) {
      assertThat(files.filter(Files::isRegularFile).toList()).isEmpty();
    }
  }

  private Path only(String suffix) throws Exception {
    try (Stream<Path> files = Files.walk(root)) {
      List<Path> matches = files.filter(p -> p.toString().endsWith(suffix)).toList();
      assertThat(matches).hasSize(1);
      return matches.get(0);
    }
  }
}
