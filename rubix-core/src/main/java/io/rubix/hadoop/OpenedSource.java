package io.rubix.hadoop;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.Source;
import java.io.EOFException;
import java.io.IOException;
import java.util.function.IntConsumer;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * The source of one stream: each ranged read opens the wrapped file system's own stream at the
 * stream's status ({@link CachingSupport.SourceOpener}: no HEAD, random read policy, so one request for
 * the range) and reads the range from it, announcing the bytes as they arrive (every
 * {@value #ANNOUNCE_BYTES} bytes), so that a reader waiting for the start of a long range takes it
 * before the rest is in.
 */
final class OpenedSource implements Source {
  static final int ANNOUNCE_BYTES = 64 * 1024;

  private final Path path;
  private final FileStatus status;
  private final CachingSupport.SourceOpener opener;

  OpenedSource(Path path, FileStatus status, CachingSupport.SourceOpener opener) {
    this.path = requireNonNull(path, "path is null");
    this.status = requireNonNull(status, "status is null");
    this.opener = requireNonNull(opener, "opener is null");
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    try (FSDataInputStream in = opener.open(path, status)) {
      in.readFully(position, buffer, offset, length);
    }
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
    if (length <= ANNOUNCE_BYTES) {
      readFully(position, buffer, offset, length);
      arrived.accept(length);
      return;
    }
    try (FSDataInputStream in = opener.open(path, status)) {
      // the first read asks for the whole range (random policy: one request); the reads after it continue that request
      in.seek(position);
      int read = 0;
      int announced = 0;
      while (read < length) {
        int n = in.read(buffer, offset + read, length - read);
        if (n < 0) {
          throw new EOFException("Source " + path + " ended at " + (position + read) + ", reading [" + position + ", +" + length + ")");
        }
        read += n;
        if (read - announced >= ANNOUNCE_BYTES || read == length) {
          arrived.accept(read);
          announced = read;
        }
      }
    }
  }
}
