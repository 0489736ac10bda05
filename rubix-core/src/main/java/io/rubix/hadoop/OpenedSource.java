package io.rubix.hadoop;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.Source;
import java.io.IOException;
import java.util.function.IntConsumer;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * The source of one stream: each ranged read opens the wrapped file system's own stream at the
 * stream's status ({@link CachingSupport.SourceOpener}: no HEAD, random read policy, so one request for
 * the range) and reads the range from it; where the opener's streams ask for exactly the range
 * ({@link CachingSupport.SourceOpener#streamsRanges}), announcing the bytes as they arrive (every
 * {@value RangeReads#ANNOUNCE_BYTES} bytes), so that a reader waiting for the start of a long range takes it
 * before the rest is in.
 */
final class OpenedSource implements Source {
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
    if (length <= RangeReads.ANNOUNCE_BYTES || !opener.streamsRanges()) {
      readFully(position, buffer, offset, length);
      arrived.accept(length);
      return;
    }
    try (FSDataInputStream in = opener.open(path, status)) {
      RangeReads.readFully(in, path.toString(), position, buffer, offset, length, arrived);
    }
  }
}
