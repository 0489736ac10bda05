package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.CachingInputStream;
import java.io.IOException;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Iceberg's stream over a {@link CachingInputStream}: sequential reads and seeks are the cache stream's
 * (read-ahead included); {@link #readFully(long, byte[], int, int)} and {@link #readTail} are positioned
 * reads that leave the stream's position alone, as {@link RangeReadable} allows, and may run while
 * another thread reads sequentially.
 */
final class CachingSeekableInputStream extends SeekableInputStream implements RangeReadable {
  private final CachingInputStream in;

  CachingSeekableInputStream(CachingInputStream in) {
    this.in = requireNonNull(in, "in is null");
  }

  @Override
  public long getPos() throws IOException {
    return in.getPos();
  }

  @Override
  public void seek(long newPos) throws IOException {
    in.seek(newPos);
  }

  @Override
  public int read() throws IOException {
    return in.read();
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    return in.read(buffer, offset, length);
  }

  @Override
  public long skip(long n) throws IOException {
    return in.skip(n);
  }

  @Override
  public int available() throws IOException {
    return in.available();
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    in.readFully(position, buffer, offset, length);
  }

  @Override
  public int readTail(byte[] buffer, int offset, int length) throws IOException {
    long fileLength = in.version().length();
    int n = (int) Math.min(length, fileLength);
    in.readFully(fileLength - n, buffer, offset, n);
    return n;
  }

  @Override
  public void close() {
    in.close();
  }

  @Override
  public String toString() {
    return "CachingSeekableInputStream[" + in.version() + "]";
  }
}
