package io.rubix.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.ChecksumVerification;
import io.rubix.testing.ZeroCrcCollisions;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The writer's side of caching blocks of zeros: a block whose CRC32C is that of zeros of its length is
 * committed only when its bytes are zeros, since a hole (which reads as zeros) would match it.
 */
class CommittableBlockTest {
  private static final int BLOCK = 4096;

  private static BlockStore store() {
    return new BlockStore(BLOCK, new CacheFiles(1, ChannelOpener.DEFAULT), ChecksumVerification.FIRST_READ, 1);
  }

  @Test
  void theZeroCrcIsTheCrcOfZerosOfThatLength() {
    for (int length : new int[] {1, 100, BLOCK, 64 * 1024, 64 * 1024 + 1, 200_000}) {
      assertThat(BlockStore.zeroCrc32c(length)).as("length %s", length).isEqualTo(BlockStore.crc32c(ByteBuffer.allocate(length)));
    }
  }

  @Test
  void theDecisionLooksAtTheBytesOnlyWhenTheCrcIsThatOfZeros() {
    int zeros = 0x1234_5678;
    byte[] other = {0, 0, 7, 0};
    // a claimed CRC that is not the zeros' one: committable whatever the bytes
    assertThat(BlockStore.committable(zeros + 1, zeros, ByteBuffer.wrap(other))).isTrue();
    // the zeros' CRC: committable only for zeros
    assertThat(BlockStore.committable(zeros, zeros, ByteBuffer.wrap(other))).isFalse();
    assertThat(BlockStore.committable(zeros, zeros, ByteBuffer.wrap(new byte[4]))).isTrue();
    // only the buffer's remaining bytes count, and they are not consumed
    ByteBuffer slice = ByteBuffer.wrap(other, 0, 2);
    assertThat(BlockStore.committable(zeros, zeros, slice)).isTrue();
    assertThat(slice.remaining()).isEqualTo(2);
    assertThat(BlockStore.committable(zeros, zeros, ByteBuffer.wrap(other, 1, 3))).isFalse();
  }

  @Test
  void aNonZeroBlockWithTheCrcOfZerosIsNotCommittable() {
    try (BlockStore store = store()) {
      for (int length : new int[] {BLOCK, 100}) {
        byte[] collision = ZeroCrcCollisions.block(length);
        assertThat(collision).as("length %s", length).isNotEqualTo(new byte[length]);
        int crc = BlockStore.crc32c(ByteBuffer.wrap(collision));
        assertThat(crc).as("length %s", length).isEqualTo(BlockStore.zeroCrc32c(length));
        assertThat(store.committable(crc, ByteBuffer.wrap(collision))).as("length %s", length).isFalse();
        assertThat(store.committable(crc, ByteBuffer.allocate(length))).as("zeros of length %s", length).isTrue();
      }
    }
  }

  @Test
  void ordinaryBlocksAreCommittable() {
    try (BlockStore store = store()) {
      byte[] bytes = new byte[BLOCK];
      new Random(3).nextBytes(bytes);
      assertThat(store.committable(BlockStore.crc32c(ByteBuffer.wrap(bytes)), ByteBuffer.wrap(bytes))).isTrue();
      byte[] tail = Arrays.copyOf(bytes, 100);
      assertThat(store.committable(BlockStore.crc32c(ByteBuffer.wrap(tail)), ByteBuffer.wrap(tail))).isTrue();
    }
  }
}
