package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

/**
 * An input stream over one object version that reads through the block cache. Sequential reads
 * ({@code read}, {@code seek}) are synchronized on the stream as {@code FSInputStream} requires;
 * positioned, byte-buffer positioned and vectored reads take no stream lock and may run in parallel.
 */
public final class CachingInputStream extends FSInputStream
    implements ByteBufferReadable, ByteBufferPositionedReadable, CanUnbuffer, StreamCapabilities, IOStatisticsSource {
  private final BlockReader reader;
  private final ReadSession session;
  private final Executor vectoredExecutor;
  private final byte[] oneByte = new byte[1];
  // @GuardedBy("this")
  private long position;
  private volatile boolean closed;

  public CachingInputStream(BlockReader reader, ObjectVersion version, Source source, StreamStats stats, Executor vectoredExecutor) {
    this.reader = requireNonNull(reader, "reader is null");
    this.session = reader.newSession(version, source, stats);
    this.vectoredExecutor = requireNonNull(vectoredExecutor, "vectoredExecutor is null");
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
    validatePositionedReadArgs(position, buffer, offset, length);
    return read(ByteBuffer.wrap(buffer, offset, length));
  }

  @Override
  public synchronized int read(ByteBuffer buffer) throws IOException {
    checkOpen();
    int n = reader.read(session, position, buffer);
    if (n > 0) {
      position += n;
    }
    return n;
  }

  @Override
  public int read(long at, byte[] buffer, int offset, int length) throws IOException {
    validatePositionedReadArgs(at, buffer, offset, length);
    checkOpen();
    return reader.read(session, at, ByteBuffer.wrap(buffer, offset, length));
  }

  @Override
  public void readFully(long at, byte[] buffer, int offset, int length) throws IOException {
    validatePositionedReadArgs(at, buffer, offset, length);
    readFully(at, ByteBuffer.wrap(buffer, offset, length));
  }

  @Override
  public int read(long at, ByteBuffer buffer) throws IOException {
    checkOpen();
    return reader.read(session, at, buffer);
  }

  @Override
  public void readFully(long at, ByteBuffer buffer) throws IOException {
    checkOpen();
    if (at < 0) {
      throw new EOFException(FSExceptionMessages.NEGATIVE_SEEK + ": " + at + " in " + session.version.path());
    }
    long end = at + buffer.remaining();
    if (end > session.version.length()) {
      throw new EOFException(String.format(Locale.ROOT, "Read past end of file %s: position %d, length %d, file length %d",
          session.version.path(), at, buffer.remaining(), session.version.length()));
    }
    long next = at;
    while (buffer.hasRemaining()) {
      int n = reader.read(session, next, buffer);
      if (n < 0) {
        throw new EOFException(FSExceptionMessages.EOF_IN_READ_FULLY + ": " + session.version.path() + " at " + next);
      }
      next += n;
    }
  }

  @Override
  public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
    checkOpen();
    List<? extends FileRange> sorted = org.apache.hadoop.fs.VectoredReadUtils.validateAndSortRanges(ranges,
        java.util.Optional.of(session.version.length()));
    List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>(sorted.size());
    for (FileRange range : sorted) {
      CompletableFuture<ByteBuffer> future = CompletableFuture.supplyAsync(() -> {
        ByteBuffer buffer = allocate.apply(range.getLength());
        try {
          ByteBuffer target = buffer.duplicate();
          target.limit(target.position() + range.getLength());
          readFully(range.getOffset(), target);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
        buffer.limit(buffer.position() + range.getLength());
        return buffer;
      }, vectoredExecutor);
      range.setData(future);
      futures.add(future);
    }
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
    session.recentStatus = null;
    session.lastPeerBlock = null;
    session.peerAhead.clear();
  }

  @Override
  public boolean hasCapability(String capability) {
    return switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.READBYTEBUFFER, StreamCapabilities.PREADBYTEBUFFER, StreamCapabilities.UNBUFFER,
           StreamCapabilities.IOSTATISTICS, StreamCapabilities.VECTOREDIO -> true;
      default -> false;
    };
  }

  @Override
  public IOStatistics getIOStatistics() {
    return session.stats.ioStatistics();
  }

  @Override
  public void close() {
    closed = true;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + session.version.path());
    }
  }

  @Override
  public String toString() {
    return "CachingInputStream[" + session.version + "]";
  }
}
