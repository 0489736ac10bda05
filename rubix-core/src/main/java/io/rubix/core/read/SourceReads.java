package io.rubix.core.read;

import io.rubix.core.stats.CacheCounter;
import java.io.IOException;

/**
 * The caller's bytes straight from the source, not cached: the fallback of every other source of
 * bytes, and the way to read blocks this node does not cache when no owner serves them.
 *
 * <p>Design: stateless; runs in the reader's thread; calls only the session's {@link Source}.
 */
final class SourceReads {
  private SourceReads() {}

  /** Fills {@code span} with one source request (none when it is empty) and counts it. */
  static void read(ReadSession s, Span span) throws IOException {
    int length = span.length();
    if (length == 0) {
      return;
    }
    if (span.buffer().hasArray()) {
      s.source.readFully(span.position(), span.buffer().array(), span.buffer().arrayOffset(), length);
    } else {
      byte[] bytes = new byte[length];
      s.source.readFully(span.position(), bytes, 0, length);
      span.put(bytes, 0);
    }
    s.stats.add(CacheCounter.SOURCE_REQUESTS, 1);
    s.stats.add(CacheCounter.SOURCE_BYTES, length);
  }
}
