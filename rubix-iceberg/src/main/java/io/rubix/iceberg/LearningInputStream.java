package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.LongSupplier;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * The delegate FileIO's own stream of a file whose length nobody knows yet, read as the delegate reads it
 * (S3FileIO: one GET from the start, no HEAD), which keeps a copy of what its reader reads from the start
 * onwards: once the reader has read the whole file, in order, the copy and its length go to
 * {@code learned}, so the file can be cached without asking the store for anything more. A seek
 * elsewhere, or a file longer than {@link #MAX_COPY}, ends the copy; the reader never notices.
 *
 * <p>The end of the file is known when a read returns -1, when the reader's position reaches the length
 * {@code knownLength} tells (Avro readers ask it), or, on close, when one more read of the delegate's
 * stream returns -1: readers that stop at the end of what they parse (JSON) seldom read to -1 themselves.
 */
final class LearningInputStream extends SeekableInputStream implements RangeReadable {
  /** The most bytes a stream copies: metadata and manifest lists are smaller; a larger file is not worth the heap. */
  static final int MAX_COPY = 8 << 20;

  /** Where the copy goes: the file's bytes, {@code copy[0, length)}. */
  interface Learned {
    void learned(byte[] copy, int length);
  }

  private final InputFile file;
  private final SeekableInputStream in;
  /** The file's length if someone learned it since (the delegate's getLength()), else negative. */
  private final LongSupplier knownLength;
  private final Learned learned;
  private final int maxCopy;
  /** The bytes read from the start, {@code copy[0, copied)}; null once the copy is given up or handed over. */
  private byte[] copy = new byte[0];
  private int copied;

  /**
   * @param file the file, asked its length only by {@link #readTail} on a delegate stream without one
   * @param in the delegate's stream of it
   * @param knownLength the length if someone has learned it (no request), else negative
   */
  LearningInputStream(InputFile file, SeekableInputStream in, LongSupplier knownLength, Learned learned) {
    this(file, in, knownLength, learned, MAX_COPY);
  }

  LearningInputStream(InputFile file, SeekableInputStream in, LongSupplier knownLength, Learned learned, int maxCopy) {
    this.file = requireNonNull(file, "file is null");
    this.in = requireNonNull(in, "in is null");
    this.knownLength = requireNonNull(knownLength, "knownLength is null");
    this.learned = requireNonNull(learned, "learned is null");
    this.maxCopy = maxCopy;
  }

  @Override
  public long getPos() throws IOException {
    return in.getPos();
  }

  @Override
  public void seek(long newPos) throws IOException {
    if (copy != null && newPos != copied) {
      copy = null;
    }
    in.seek(newPos);
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b < 0) {
      ended();
    } else if (copy != null) {
      append(new byte[] {(byte) b}, 0, 1);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = in.read(buffer, offset, length);
    if (n < 0) {
      ended();
    } else if (copy != null) {
      append(buffer, offset, n);
    }
    return n;
  }

  @Override
  public int available() throws IOException {
    return in.available();
  }

  private void append(byte[] buffer, int offset, int length) {
    if (copied + length > maxCopy) {
      copy = null;
      return;
    }
    if (copied + length > copy.length) {
      copy = Arrays.copyOf(copy, Math.min(maxCopy, Math.max(copied + length, Math.max(64 << 10, 2 * copy.length))));
    }
    System.arraycopy(buffer, offset, copy, copied, length);
    copied += length;
    if (copied == knownLength.getAsLong()) {
      ended();
    }
  }

  /** The file ends where the copy does: hands it over, once (an empty file has nothing worth keeping). */
  private void ended() {
    byte[] whole = copy;
    copy = null;
    if (whole != null && copied > 0) {
      learned.learned(whole, copied);
    }
  }

  /** The delegate's positioned read where its stream has one (one ranged GET), else a seek and read that puts the position back. */
  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    if (in instanceof RangeReadable ranged) {
      ranged.readFully(position, buffer, offset, length);
      return;
    }
    synchronized (this) {
      long back = in.getPos();
      in.seek(position);
      try {
        InputFileSource.readFully(in, file.location(), position, buffer, offset, length);
      } finally {
        in.seek(back);
      }
    }
  }

  @Override
  public int readTail(byte[] buffer, int offset, int length) throws IOException {
    if (in instanceof RangeReadable ranged) {
      return ranged.readTail(buffer, offset, length);
    }
    long fileLength = file.getLength();
    int n = (int) Math.min(length, fileLength);
    readFully(fileLength - n, buffer, offset, n);
    return n;
  }

  /**
   * Closes the delegate's stream; before that, when the reader read from the start and stopped short of
   * -1, one more read tells whether it reached the end (on a stream of the whole object, the body's end
   * is already there: no request).
   */
  @Override
  public void close() throws IOException {
    try {
      if (copy != null && copied > 0 && in.getPos() == copied && in.read() < 0) {
        ended();
      }
    } catch (IOException | RuntimeException e) {
      copy = null;
    } finally {
      copy = null;
      in.close();
    }
  }

  @Override
  public String toString() {
    return "LearningInputStream[" + file.location() + "]";
  }
}
