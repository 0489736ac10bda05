package io.rubix.hadoop;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.compat.HadoopApi;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.StaleVersionException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.function.IntConsumer;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * The source of one stream on a store that does not check versions itself (no ETag change
 * detection: local file system, HDFS, statuses without an ETag). Once per stream, after its first
 * source read and before any byte read from the source is used, it asks the store for the path's
 * status and fails with a {@link StaleVersionException} naming both versions when length,
 * modification time or (when both have one) ETag differ from the version the stream reads; every
 * later read fails the same way. So bytes of a newer version are never returned with, nor cached
 * under, an older version's blocks. Cost: one status call per stream that reads the source, none
 * for a stream served from the cache.
 *
 * <p>Limits: a change after the check, while the stream is open, is not seen (the same window a
 * stream opened before the change always had); a change that keeps length and modification time
 * (same length within one modification-time tick) cannot be seen without an ETag.
 */
final class VersionCheckedSource implements Source {
  private final Source delegate;
  private final Path path;
  private final FileStatus expected;
  private final StatusTracker.StatusLookup lookup;
  private final Runnable onStale;
  @GuardedBy("this")
  private boolean checked;
  @GuardedBy("this")
  private StaleVersionException stale;

  /** {@code onStale} runs once when the check finds another version (to forget a trusted status, say). */
  VersionCheckedSource(Source delegate, Path path, FileStatus expected, StatusTracker.StatusLookup lookup, Runnable onStale) {
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.path = requireNonNull(path, "path is null");
    this.expected = requireNonNull(expected, "expected is null");
    this.lookup = requireNonNull(lookup, "lookup is null");
    this.onStale = requireNonNull(onStale, "onStale is null");
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    // read first, then check: a change made before this read is then seen
    delegate.readFully(position, buffer, offset, length);
    check();
  }

  /** As {@link #readFully(long, byte[], int, int)}; bytes are announced as they arrive only once the version was checked, else all at the end. */
  @Override
  public void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
    if (checkedSame()) {
      delegate.readFully(position, buffer, offset, length, arrived);
      check();
      return;
    }
    readFully(position, buffer, offset, length);
    arrived.accept(length);
  }

  private synchronized boolean checkedSame() {
    return checked && stale == null;
  }

  private synchronized void check() throws IOException {
    if (!checked) {
      FileStatus found;
      try {
        found = lookup.lookup(path);
      } catch (FileNotFoundException e) {
        stale = new StaleVersionException("Object " + path + " changed while it was read: expected " + describe(expected) + ", found none", e);
        found = null;
      }
      if (found != null && !sameVersion(expected, found)) {
        stale = new StaleVersionException("Object " + path + " changed while it was read: expected " + describe(expected) + ", found " + describe(found));
      }
      checked = true;
      if (stale != null) {
        onStale.run();
      }
    }
    if (stale != null) {
      throw new StaleVersionException(stale.getMessage(), stale);
    }
  }

  private static boolean sameVersion(FileStatus expected, FileStatus found) {
    if (expected.getLen() != found.getLen() || expected.getModificationTime() != found.getModificationTime()) {
      return false;
    }
    String expectedEtag = HadoopApi.etagOf(expected);
    String foundEtag = HadoopApi.etagOf(found);
    return expectedEtag == null || foundEtag == null || expectedEtag.equals(foundEtag);
  }

  private static String describe(FileStatus status) {
    String etag = HadoopApi.etagOf(status);
    return "length " + status.getLen() + ", modification time " + status.getModificationTime() + ", etag " + (etag == null ? "none" : etag);
  }
}
