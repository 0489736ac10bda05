package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.compat.HadoopApi;
import io.rubix.core.read.session.InputBytes;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.Executor;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;

/**
 * An input stream over one object version that reads through the block cache. Sequential reads
 * ({@code read}, {@code seek}) are synchronized on the stream as {@code FSInputStream} requires;
 * positioned and byte-buffer positioned reads take no stream lock and may run in parallel.
 *
 * <p>This class uses only what Hadoop 2.7 has, so it loads in PrestoDB; on Hadoop 3.3+ streams are
 * {@link Hadoop3CachingInputStream}s, which add stream capabilities, IOStatistics and vectored reads.
 * {@link #factory()} picks the one the Hadoop on the classpath can load.
 */
public sealed class CachingInputStream extends FSInputStream implements ByteBufferReadable, CanUnbuffer permits Hadoop3CachingInputStream {
  /** Creates streams; see {@link #factory()}. */
  @FunctionalInterface
  public interface Factory {
    CachingInputStream open(BlockReader reader, ObjectVersion version, Source source, StreamStats stats, InputBytes inputBytes,
        Executor vectoredExecutor);
  }

  private final BlockReader reader;
  final ReadSession session;
  private final InputBytes inputBytes;
  private final byte[] oneByte = new byte[1];
  @GuardedBy("this")
  private long position;
  private volatile boolean closed;

  CachingInputStream(BlockReader reader, ObjectVersion version, Source source, StreamStats stats, InputBytes inputBytes) {
    this.reader = requireNonNull(reader, "reader is null");
    this.session = reader.newSession(version, source, stats);
    this.inputBytes = requireNonNull(inputBytes, "inputBytes is null");
  }

  /** The stream class for the Hadoop on the classpath, chosen once ({@link HadoopApi#STREAM_3}). */
  public static Factory factory() {
    return HadoopApi.STREAM_3 ? Hadoop3CachingInputStream.FACTORY : (reader, version, source, stats, inputBytes, vectoredExecutor) ->
        new CachingInputStream(reader, version, source, stats, inputBytes);
  }

  BlockReader reader() {
    return reader;
  }

  public ObjectVersion version() {
    return session.version;
  }

  @Override
  public synchronized int read() throws IOException {
    int n = read(oneByte, 0, 1);
    return n <= 0 ? -1 : oneByte[0] & 0xff;
  }

  @Override
  public synchronized int read(byte[] buffer, int offset, int length) throws IOException {
    checkReadArgs(position, buffer, offset, length);
    return read(ByteBuffer.wrap(buffer, offset, length));
  }

  @Override
  public synchronized int read(ByteBuffer buffer) throws IOException {
    checkOpen();
    long mark = inputBytes.mark();
    int n = reader.read(session, position, buffer);
    inputBytes.returned(mark, n);
    if (n > 0) {
      position += n;
    }
    return n;
  }

  @Override
  public int read(long at, byte[] buffer, int offset, int length) throws IOException {
    checkReadArgs(at, buffer, offset, length);
    checkOpen();
    return counted(at, ByteBuffer.wrap(buffer, offset, length));
  }

  @Override
  public void readFully(long at, byte[] buffer, int offset, int length) throws IOException {
    checkReadArgs(at, buffer, offset, length);
    readFully(at, ByteBuffer.wrap(buffer, offset, length));
  }

  /** A positioned read into {@code buffer} (Hadoop 3's {@code ByteBufferPositionedReadable}). */
  public int read(long at, ByteBuffer buffer) throws IOException {
    checkOpen();
    return counted(at, buffer);
  }

  /** A positioned read filling {@code buffer} (Hadoop 3's {@code ByteBufferPositionedReadable}). */
  public void readFully(long at, ByteBuffer buffer) throws IOException {
    readFully(at, buffer, true);
  }

  /**
   * Fills {@code buffer} from {@code at}: as a stream read when {@code stream}, else as one range of a
   * vectored read ({@link BlockReader#readDeclared}: no read-ahead; its bytes were counted when the
   * vectored read was asked for, in the asking thread).
   */
  void readFully(long at, ByteBuffer buffer, boolean stream) throws IOException {
    checkOpen();
    if (at < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + ": " + at + " in " + session.version.path());
    }
    long end = at + buffer.remaining();
    if (end > session.version.length()) {
      throw new EOFException(String.format(Locale.ROOT, "Read past end of file %s: position %d, length %d, file length %d",
          session.version.path(), at, buffer.remaining(), session.version.length()));
    }
    long mark = inputBytes.mark();
    long next = at;
    while (buffer.hasRemaining()) {
      int n = stream ? reader.read(session, next, buffer) : reader.readDeclared(session, next, buffer);
      if (n < 0) {
        throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + ": " + session.version.path() + " at " + next);
      }
      next += n;
    }
    if (stream) {
      inputBytes.returned(mark, next - at);
    }
  }

  /** The file system's statistics, for a vectored read, which counts its bytes in the asking thread. */
  InputBytes inputBytes() {
    return inputBytes;
  }

  /** A positioned read, its bytes counted in the file system's statistics. */
  private int counted(long at, ByteBuffer buffer) throws IOException {
    long mark = inputBytes.mark();
    int n = reader.read(session, at, buffer);
    inputBytes.returned(mark, n);
    return n;
  }

  @Override
  public synchronized void seek(long target) throws IOException {
    checkOpen();
    if (target < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + ": " + target + " in " + session.version.path());
    }
    if (target > session.version.length()) {
      throw new EOFException(FSExceptionMessages.CANNOT_SEEK_PAST_EOF + ": " + target + " in " + session.version.path()
          + " of length " + session.version.length());
    }
    position = target;
  }

  @Override
  public synchronized long getPos() throws IOException {
    return position;
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false;
  }

  @Override
  public synchronized int available() throws IOException {
    checkOpen();
    return (int) Math.min(Integer.MAX_VALUE, session.version.length() - position);
  }

  @Override
  public synchronized long skip(long n) throws IOException {
    checkOpen();
    if (n <= 0) {
      return 0;
    }
    long skipped = Math.min(n, session.version.length() - position);
    position += skipped;
    return skipped;
  }

  @Override
  public void unbuffer() {
    reader.unbuffer(session);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      reader.close(session);
    }
  }

  /** As Hadoop 3's {@code FSInputStream.validatePositionedReadArgs}, which Hadoop 2.7 lacks. */
  private void checkReadArgs(long at, byte[] buffer, int offset, int length) throws EOFException {
    if (length < 0) {
      throw new IllegalArgumentException("length is negative: " + length + " reading " + session.version.path());
    }
    if (at < 0) {
      throw new EOFException("position is negative: " + at + " reading " + session.version.path());
    }
    if (buffer == null) {
      throw new IllegalArgumentException("Null buffer reading " + session.version.path());
    }
    if (offset < 0 || buffer.length - offset < length) {
      throw new IndexOutOfBoundsException(FSExceptionMessages.TOO_MANY_BYTES_FOR_DEST_BUFFER + ": request length=" + length
          + ", with offset =" + offset + "; buffer capacity =" + (buffer.length - offset) + " reading " + session.version.path());
    }
  }

  void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + session.version.path());
    }
  }

  @Override
  public String toString() {
    return "CachingInputStream[" + session.version + "]";
  }
}
