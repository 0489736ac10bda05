package io.rubix.iceberg;

import static io.rubix.iceberg.IcebergFixtures.randomBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;

/**
 * {@link LearningInputStream} over Iceberg's in-memory file, whose stream has no positioned reads: what
 * it hands over, and that its reader sees the delegate's bytes whatever it does.
 */
class LearningInputStreamTest {
  private final Random random = new Random(7);
  private final byte[] data = randomBytes(random, 50_000);
  private final InputFile file = new InMemoryInputFile("mem://table/v3.metadata.json", data);
  private final List<byte[]> handed = new ArrayList<>();
  private long knownLength = -1;

  private LearningInputStream open(int maxCopy) {
    return new LearningInputStream(file, file.newStream(), () -> knownLength, (copy, length) -> handed.add(Arrays.copyOf(copy, length)),
        maxCopy);
  }

  @Test
  void aReadToMinusOneHandsTheWholeFileOverOnce() throws IOException {
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(in.read()).isEqualTo(data[0] & 0xff);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 1, data.length));
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(handed).hasSize(1);
    assertThat(handed.get(0)).isEqualTo(data);
  }

  @Test
  void aReaderStoppingAtTheEndWithoutMinusOneHandsItOverOnClose() throws IOException {
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(readExactly(in, data.length)).isEqualTo(data);
      assertThat(handed).isEmpty();
    }
    assertThat(handed).singleElement().isEqualTo(data);
  }

  @Test
  void theLengthLearnedElsewhereEndsTheFileWhenReached() throws IOException {
    knownLength = data.length;
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(readExactly(in, data.length)).isEqualTo(data);
      assertThat(handed).singleElement().isEqualTo(data);
    }
    assertThat(handed).hasSize(1);
  }

  /** {@code length} bytes in reads of at most 999, none of them past the end (a read of 0 bytes at the end returns -1 here). */
  private static byte[] readExactly(SeekableInputStream in, int length) throws IOException {
    byte[] buffer = new byte[length];
    int done = 0;
    while (done < length) {
      done += in.read(buffer, done, Math.min(999, length - done));
    }
    return buffer;
  }

  @Test
  void aShortReadASeekElsewhereOrAFileOverTheCapHandNothingOver() throws IOException {
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(in.readNBytes(1000)).isEqualTo(Arrays.copyOf(data, 1000));
    }
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      in.seek(10);
      in.seek(0);
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    try (LearningInputStream in = open(data.length - 1)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    assertThat(handed).isEmpty();
  }

  @Test
  void aSeekToWhereTheCopyEndsKeepsIt() throws IOException {
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(in.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
      in.seek(100);
      assertThat(in.getPos()).isEqualTo(100);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 100, data.length));
    }
    assertThat(handed).singleElement().isEqualTo(data);
  }

  /** Positioned reads and tails, emulated on a stream without them, leave the position and the copy as they were. */
  @Test
  void positionedReadsLeaveTheSequentialReadAlone() throws IOException {
    assertThat(file.newStream()).isNotInstanceOf(RangeReadable.class);
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(in.readNBytes(300)).isEqualTo(Arrays.copyOf(data, 300));
      byte[] range = new byte[500];
      in.readFully(20_000, range, 0, range.length);
      assertThat(range).isEqualTo(Arrays.copyOfRange(data, 20_000, 20_500));
      byte[] tail = new byte[64];
      assertThat(in.readTail(tail, 0, tail.length)).isEqualTo(64);
      assertThat(tail).isEqualTo(Arrays.copyOfRange(data, data.length - 64, data.length));
      assertThat(in.getPos()).isEqualTo(300);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 300, data.length));
    }
    assertThat(handed).singleElement().isEqualTo(data);
  }

  /** The length asked after some reads: the rest read into memory, the reader's reads, seeks and ranges served from it. */
  @Test
  void readingWholeForTheLengthServesTheReaderFromMemory() throws IOException {
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      assertThat(in.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
      assertThat(in.readWhole()).isEqualTo(data.length);
      assertThat(handed).singleElement().isEqualTo(data);
      assertThat(in.getPos()).isEqualTo(100);
      assertThat(in.readNBytes(200)).isEqualTo(Arrays.copyOfRange(data, 100, 300));
      byte[] range = new byte[10];
      in.readFully(40_000, range, 0, range.length);
      assertThat(range).isEqualTo(Arrays.copyOfRange(data, 40_000, 40_010));
      in.seek(7);
      assertThat(in.read()).isEqualTo(data[7] & 0xff);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 8, data.length));
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.readWhole()).isEqualTo(data.length);
    }
    assertThat(handed).hasSize(1);
  }

  /** Longer than the copy may be, or read out of order: no length, and the reader goes on where it was, through the delegate. */
  @Test
  void aFileThatCannotBeReadWholeLeavesTheReaderWhereItWas() throws IOException {
    try (LearningInputStream in = open(data.length - 1)) {
      assertThat(in.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
      assertThat(in.readWhole()).isEqualTo(-1);
      assertThat(in.getPos()).isEqualTo(100);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 100, data.length));
    }
    try (LearningInputStream in = open(LearningInputStream.MAX_COPY)) {
      in.seek(500);
      assertThat(in.readWhole()).isEqualTo(-1);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 500, data.length));
    }
    assertThat(handed).isEmpty();
  }

  /** The delegate's stream fails while the rest is read for the length: the reader goes on from where it was, with the right bytes. */
  @Test
  void aFailureReadingWholeLeavesTheReaderWhereItWas() throws IOException {
    SeekableInputStream failing = new FailingOnce(file.newStream(), 20_000);
    try (LearningInputStream in = new LearningInputStream(file, failing, () -> knownLength, (copy, length) -> handed.add(copy),
        LearningInputStream.MAX_COPY)) {
      assertThat(in.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
      assertThatThrownBy(in::readWhole).isInstanceOf(IOException.class).hasMessageContaining("injected");
      assertThat(in.getPos()).isEqualTo(100);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 100, data.length));
    }
    assertThat(handed).isEmpty();
  }

  /** If the stream cannot even be put back, the reader gets failures, never bytes from elsewhere, until it seeks. */
  @Test
  void aStreamThatCannotBePutBackRefusesReadsUntilTheReaderSeeks() throws IOException {
    FailingOnce failing = new FailingOnce(file.newStream(), 20_000);
    failing.seeksFailing = 1;
    try (LearningInputStream in = new LearningInputStream(file, failing, () -> knownLength, (copy, length) -> handed.add(copy),
        LearningInputStream.MAX_COPY)) {
      assertThat(in.readNBytes(100)).isEqualTo(Arrays.copyOf(data, 100));
      assertThatThrownBy(in::readWhole).isInstanceOf(IOException.class);
      assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessageContaining("lost its position");
      in.seek(100);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, 100, data.length));
    }
  }

  /** A stream that fails once, on the first read that would reach past {@code failAt}, and its first {@code seeksFailing} seeks. */
  private static final class FailingOnce extends SeekableInputStream {
    private final SeekableInputStream in;
    private final long failAt;
    private boolean failed;
    int seeksFailing;

    FailingOnce(SeekableInputStream in, long failAt) {
      this.in = in;
      this.failAt = failAt;
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (seeksFailing > 0) {
        seeksFailing--;
        throw new IOException("injected: cannot seek");
      }
      in.seek(newPos);
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (!failed && in.getPos() + length > failAt) {
        failed = true;
        throw new IOException("injected: the connection dropped");
      }
      return in.read(buffer, offset, length);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  @Test
  void anEmptyFileIsNeverHandedOver() throws IOException {
    InputFile empty = new InMemoryInputFile("mem://table/empty", new byte[0]);
    try (SeekableInputStream in = new LearningInputStream(empty, empty.newStream(), () -> -1, (copy, length) -> handed.add(copy))) {
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(handed).isEmpty();
  }
}
