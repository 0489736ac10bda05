package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Span;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads of objects' tails (ORC and Parquet footers) from memory ({@link TailMemory}), and keeping a tail
 * there after a read that had to go to the cache or the source for it.
 *
 * <p>Threads: readers' threads. It may call the metadata service and {@link CachedBlocks}; never the other
 * read classes.
 */
final class TailReads {
  private final int blockSize;
  private final TailMemory tails;
  private final CacheMetadataService service;
  private final CachedBlocks cached;

  TailReads(int blockSize, TailMemory tails, CacheMetadataService service, CachedBlocks cached) {
    this.blockSize = blockSize;
    this.tails = requireNonNull(tails, "tails is null");
    this.service = requireNonNull(service, "service is null");
    this.cached = requireNonNull(cached, "cached is null");
  }

  /** Whether {@code position} is in the tail of the session's object, which {@link #keep} keeps after a read of it. */
  boolean inTail(ReadSession s, long position) {
    return tails.inTail(s.version, position);
  }

  /**
   * Fills {@code n} bytes of {@code dst} from {@code position} from the tail in memory and counts them
   * as hits; false (nothing read) when the tail is not in memory.
   */
  boolean read(ReadSession s, long position, int n, ByteBuffer dst) {
    if (!tails.read(s.version, position, n, dst)) {
      return false;
    }
    s.stats.add(CacheCounter.HIT_BYTES, n);
    s.stats.add(CacheCounter.TAIL_MEMORY_BYTES, n);
    return true;
  }

  /** Drops the tails of every version of {@code path} and of the paths under it. */
  void forget(String path) {
    tails.forget(path);
  }

  /**
   * Keeps the object's tail in memory after a read of its bytes {@code [position, position + n)}, which
   * {@code dst} holds from its position on: copied from the read when it covered the whole tail, else
   * read from the cache (and verified like any cached read) when the tail is cached. Best effort: a
   * failure leaves the next tail read to try again.
   */
  void keep(ReadSession s, long position, int n, ByteBuffer dst) {
    long from = tails.tailStart(s.version.length());
    byte[] tail = new byte[(int) (s.version.length() - from)];
    if (position <= from && position + n == s.version.length()) {
      dst.get(dst.position() + (int) (from - position), tail);
      tails.put(s.version, tail);
      return;
    }
    int first = (int) (from / blockSize);
    try {
      BlockRange status = s.recentStatus();
      if (status == null || !status.covers(first, s.blockCount)) {
        status = service.status(s.version, first, s.blockCount, first); // a load into memory: CachedBlocks does not report it
      }
      if (!status.allCached(first, s.blockCount)) {
        return;
      }
      // read for memory, not for the reader: only what went wrong counts in the stream's counters, not as hits
      ReadSession load = new ReadSession(s.version, s.source, new StreamStats(new CacheStats()), blockSize);
      try {
        if (cached.read(load, status, first, s.blockCount, new Span(from, ByteBuffer.wrap(tail))) == null) {
          tails.put(s.version, tail);
        }
      } finally {
        for (CacheCounter counter : CacheCounter.values()) {
          long value = load.stats.get(counter);
          if (value != 0 && counter != CacheCounter.HIT_BYTES && counter != CacheCounter.HIT_BLOCKS) {
            s.stats.add(counter, value);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // the cache's own failure handling counted it; the next read of the tail reads the cache or the source
    }
  }
}
