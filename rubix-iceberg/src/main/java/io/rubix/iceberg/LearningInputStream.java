package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import java.io.EOFException;
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
 * {@code knownLength} tells, or, on close, when one more read of the delegate's stream returns -1:
 * readers that stop at the end of what they parse (JSON) seldom read to -1 themselves. A reader that
 * needs the length before it reads (Avro: manifest lists) gets it from {@link #readWhole()}, which reads
 * the rest of the delegate's stream into memory, so the length costs no HEAD; the reader's reads are then
 * served from that copy.
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
  /** The whole file, once {@link #readWhole()} read it, {@code whole[0, copied)}: every read is then served from it. */
  private byte[] whole;
  /** The reader's position while it reads {@link #whole}. */
  private int position;
  /** What a single-byte read adds to the copy, without an array per byte. */
  private final byte[] oneByte = new byte[1];
  /** Why the delegate's stream could not be put back where the reader is, after reading ahead; null while it could. */
  private Exception lost;

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

  /**
   * The file's length, read to its end into memory from where the reader is (who has read only from the
   * start, in order): the length, or -1 when this stream cannot tell it so (the reader jumped, the file
   * is longer than the copy may be; the delegate's stream is then put back where the reader is).
   */
  synchronized long readWhole() throws IOException {
    if (whole != null) {
      return copied;
    }
    if (copy == null) {
      return -1;
    }
    int reader = copied;
    byte[] buffer = new byte[64 << 10];
    try {
      for (int n = in.read(buffer, 0, buffer.length); n >= 0; n = in.read(buffer, 0, buffer.length)) {
        if (!copy(buffer, 0, n)) {
          backTo(reader);
          return -1;
        }
      }
    } catch (IOException | RuntimeException e) {
      // the delegate's stream is past the reader now: put it back before the reader reads on
      copy = null;
      backTo(reader);
      throw e;
    }
    whole = copy;
    position = reader;
    ended();
    return copied;
  }

  /**
   * Puts the delegate's stream back at {@code reader}, where the reader is; if even that fails, the stream
   * refuses every later read rather than hand the reader bytes from elsewhere.
   */
  private void backTo(int reader) throws IOException {
    try {
      in.seek(reader);
    } catch (IOException | RuntimeException e) {
      lost = e;
      throw e;
    }
  }

  private void checkNotLost() throws IOException {
    if (lost != null) {
      throw new IOException("The stream of " + file.location() + " lost its position reading ahead for the length", lost);
    }
  }

  @Override
  public synchronized long getPos() throws IOException {
    if (whole != null) {
      return position;
    }
    checkNotLost();
    return in.getPos();
  }

  @Override
  public synchronized void seek(long newPos) throws IOException {
    if (whole != null) {
      if (newPos < 0 || newPos > copied) {
        throw new EOFException("Cannot seek " + file.location() + " to " + newPos + ": it is " + copied + " bytes long");
      }
      position = (int) newPos;
      return;
    }
    if (copy != null && newPos != copied) {
      copy = null;
    }
    in.seek(newPos);
    // the reader said where it is: the stream is where it should be again
    lost = null;
  }

  @Override
  public synchronized int read() throws IOException {
    if (whole != null) {
      return position < copied ? whole[position++] & 0xff : -1;
    }
    checkNotLost();
    int b = in.read();
    if (b < 0) {
      ended();
    } else if (copy != null) {
      oneByte[0] = (byte) b;
      appended(copy(oneByte, 0, 1));
    }
    return b;
  }

  @Override
  public synchronized int read(byte[] buffer, int offset, int length) throws IOException {
    if (whole != null) {
      if (length == 0) {
        return 0;
      }
      if (position >= copied) {
        return -1;
      }
      int n = Math.min(length, copied - position);
      System.arraycopy(whole, position, buffer, offset, n);
      position += n;
      return n;
    }
    checkNotLost();
    int n = in.read(buffer, offset, length);
    if (n < 0) {
      ended();
    } else if (copy != null) {
      appended(copy(buffer, offset, n));
    }
    return n;
  }

  @Override
  public synchronized int available() throws IOException {
    return whole != null ? copied - position : in.available();
  }

  /** Adds {@code buffer[offset, offset + length)} to the copy; false, and the copy given up, when it would grow past the most it may. */
  private boolean copy(byte[] buffer, int offset, int length) {
    if (copied + length > maxCopy) {
      copy = null;
      return false;
    }
    if (copied + length > copy.length) {
      copy = Arrays.copyOf(copy, Math.min(maxCopy, Math.max(copied + length, Math.max(64 << 10, 2 * copy.length))));
    }
    System.arraycopy(buffer, offset, copy, copied, length);
    copied += length;
    return true;
  }

  /** After a read added to the copy: the file ends here if that is the length someone learned. */
  private void appended(boolean copying) {
    if (copying && copied == knownLength.getAsLong()) {
      ended();
    }
  }

  /** The file ends where the copy does: hands it over, once (an empty file has nothing worth keeping). */
  private void ended() {
    byte[] all = copy;
    copy = null;
    if (all != null && copied > 0) {
      learned.learned(all, copied);
    }
  }

  /** The delegate's positioned read where its stream has one (one ranged GET), else a seek and read that puts the position back. */
  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    synchronized (this) {
      if (whole != null) {
        if (position < 0 || position + length > copied) {
          throw new EOFException("Reading " + file.location() + " [" + position + ", +" + length + "): it is " + copied + " bytes long");
        }
        System.arraycopy(whole, (int) position, buffer, offset, length);
        return;
      }
      if (!(in instanceof RangeReadable)) {
        long back = in.getPos();
        in.seek(position);
        try {
          InputFileSource.readFully(in, file.location(), position, buffer, offset, length);
        } finally {
          in.seek(back);
        }
        return;
      }
    }
    ((RangeReadable) in).readFully(position, buffer, offset, length);
  }

  @Override
  public int readTail(byte[] buffer, int offset, int length) throws IOException {
    synchronized (this) {
      if (whole == null && in instanceof RangeReadable ranged) {
        return ranged.readTail(buffer, offset, length);
      }
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
  public synchronized void close() throws IOException {
    try {
      if (copy != null && copied > 0 && in.getPos() == copied && in.read() < 0) {
        ended();
      }
    } catch (IOException | RuntimeException e) {
      copy = null;
    } finally {
      // the file may outlive its stream (Iceberg keeps a snapshot's manifest list file): nothing of the bytes stays with it
      copy = null;
      whole = null;
      in.close();
    }
  }

  @Override
  public String toString() {
    return "LearningInputStream[" + file.location() + "]";
  }
}
