package io.rubix.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.ChecksumVerification;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A run of cached blocks is one positioned read of its data file once its blocks are trusted, and
 * serves exactly the object's bytes in every verification mode, whatever run is asked: the run read
 * against the bytes themselves, over random runs, and the corrupt and dropped files it must not serve.
 */
class RunReadTest {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 7;

  @TempDir
  Path root;

  /** Six whole blocks and a short last one. */
  private final byte[] data = bytes(6 * BLOCK + 100, 7);
  private final ObjectVersion version = new ObjectVersion("s3a://bucket/run", data.length, 1000, "etag");
  private final AtomicInteger preads = new AtomicInteger();
  private InProcessMetadataService service;
  private CacheFiles files;
  private Path dataFile;
  private BlockRange status;

  @BeforeEach
  void cacheEveryBlock() throws IOException {
    service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(64L * BLOCK))
        .leaseTimeout(Duration.ofSeconds(30)).build());
    files = new CacheFiles(8, file -> new ForwardingFileChannel(ChannelOpener.DEFAULT.open(file)) {
      @Override
      public int read(ByteBuffer dst, long position) throws IOException {
        preads.incrementAndGet();
        return super.read(dst, position);
      }
    });
    BlockRange lease = service.acquire(version, 0, BLOCKS);
    dataFile = Path.of(lease.dataFile());
    BlockStore writer = store(ChecksumVerification.FIRST_READ);
    int[] blocks = new int[BLOCKS];
    int[] crcs = new int[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
      blocks[b] = b;
      crcs[b] = writer.write(dataFile, version, b, ByteBuffer.wrap(data, b * BLOCK, version.blockLength(b, BLOCK)));
    }
    assertThat(service.commit(lease.leaseId(), blocks, crcs)).isEqualTo(BLOCKS);
    status = service.status(version, 0, BLOCKS);
  }

  @AfterEach
  void close() throws IOException {
    files.close();
    service.close();
  }

  private BlockStore store(ChecksumVerification verification) {
    return new BlockStore(BLOCK, files, verification, 2);
  }

  @Test
  void aRunOfTrustedBlocksIsOneReadOfTheFile() throws IOException {
    BlockStore store = store(ChecksumVerification.FIRST_READ);
    long from = BLOCK / 2;
    long to = data.length - 50;
    // first: the partly read first and last blocks are read whole apart, to be verified; the rest at once
    assertThat(readRun(store, from, to)).isEqualTo(Arrays.copyOfRange(data, (int) from, (int) to));
    assertThat(preads.get()).isEqualTo(3);
    preads.set(0);
    assertThat(readRun(store, from, to)).isEqualTo(Arrays.copyOfRange(data, (int) from, (int) to));
    assertThat(preads.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(ChecksumVerification.class)
  void everyRunServesTheObjectsBytes(ChecksumVerification verification) throws IOException {
    BlockStore store = store(verification);
    Random random = new Random(verification.ordinal());
    for (int i = 0; i < 300; i++) {
      long from = random.nextInt(data.length);
      long to = from + 1 + random.nextInt(data.length - (int) from);
      assertThat(readRun(store, from, to)).as("[%d, %d)", from, to).isEqualTo(Arrays.copyOfRange(data, (int) from, (int) to));
    }
  }

  @ParameterizedTest
  @EnumSource(value = ChecksumVerification.class, names = {"ALWAYS", "FIRST_READ"})
  void aCorruptBlockIsNamedAndOnlyTheBlocksBeforeItAreServed(ChecksumVerification verification) throws IOException {
    try (FileChannel raw = FileChannel.open(dataFile, StandardOpenOption.WRITE)) {
      raw.write(ByteBuffer.wrap(new byte[] {(byte) ~data[3 * BLOCK + 10]}), 3 * BLOCK + 10);
    }
    BlockStore store = store(verification);
    ByteBuffer dst = ByteBuffer.allocate(data.length - 10);
    assertThatThrownBy(() -> store.readRun(dataFile, version, 0, BLOCKS, status::crc32c, 10, dst))
        .isInstanceOfSatisfying(CacheCorruptionException.class, e -> assertThat(e.block()).isEqualTo(3));
    assertThat(Arrays.copyOfRange(dst.array(), 0, 3 * BLOCK - 10)).isEqualTo(Arrays.copyOfRange(data, 10, 3 * BLOCK));
  }

  @ParameterizedTest
  @EnumSource(ChecksumVerification.class)
  void aDroppedFileIsGoneNeverItsHoles(ChecksumVerification verification) throws IOException {
    BlockStore store = store(verification);
    readRun(store, 0, data.length);
    assertThat(service.clear()).isEqualTo(1);
    assertThatThrownBy(() -> readRun(store, 0, data.length)).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void aReadThatIsNotTheRunsBlocksIsRefused() {
    BlockStore store = store(ChecksumVerification.FIRST_READ);
    // starts in block 1, so is not a run from block 0
    assertThatThrownBy(() -> store.readRun(dataFile, version, 0, 2, status::crc32c, BLOCK, ByteBuffer.allocate(BLOCK)))
        .isInstanceOf(IllegalArgumentException.class);
    // ends in block 1, so is not a run to block 3
    assertThatThrownBy(() -> store.readRun(dataFile, version, 0, 3, status::crc32c, 0, ByteBuffer.allocate(BLOCK + 1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private byte[] readRun(BlockStore store, long from, long to) throws IOException {
    int first = (int) (from / BLOCK);
    int end = (int) ((to + BLOCK - 1) / BLOCK);
    ByteBuffer dst = ByteBuffer.allocate((int) (to - from));
    store.readRun(dataFile, version, first, end, status::crc32c, from, dst);
    assertThat(dst.hasRemaining()).isFalse();
    return dst.array();
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
