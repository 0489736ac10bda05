package io.rubix.core.read;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.rubix.spi.ObjectVersion;
import java.nio.ByteBuffer;

/**
 * The tails of recently read objects in memory, so that the footer reads every ORC or Parquet reader
 * makes at open do not touch the disk when the object is warm. Bounded in bytes (least recently used
 * out first); keyed by the exact object version, so a tail is never served for another version; filled
 * only with bytes read and verified from the cache.
 *
 * <p>Threads: any; Caffeine does its maintenance in the calling thread.
 */
final class TailMemory {
  private final long tailBytes;
  private final Cache<ObjectVersion, byte[]> tails;

  /** Tails of up to {@code tailBytes} each, {@code maxBytes} in all; {@code maxBytes} or {@code tailBytes} 0 keeps none. */
  TailMemory(long tailBytes, long maxBytes) {
    this.tailBytes = maxBytes > 0 ? Math.min(tailBytes, maxBytes) : 0;
    this.tails = Caffeine.newBuilder()
        .maximumWeight(Math.max(1, maxBytes))
        .weigher((ObjectVersion version, byte[] tail) -> tail.length + version.path().length())
        .executor(Runnable::run)
        .build();
  }

  /** Where the tail of an object of {@code length} bytes starts. */
  long tailStart(long length) {
    return Math.max(0, length - tailBytes);
  }

  /** Whether bytes {@code [position, position + length)} of {@code version} lie in its tail (and tails are kept at all). */
  boolean inTail(ObjectVersion version, long position) {
    return tailBytes > 0 && position >= tailStart(version.length());
  }

  /**
   * Copies bytes {@code [position, position + n)} of {@code version}, which lie in its tail ({@link #inTail}),
   * into {@code dst} (absolute, from its position) when that tail is here.
   */
  boolean read(ObjectVersion version, long position, int n, ByteBuffer dst) {
    byte[] tail = tails.getIfPresent(version);
    if (tail == null) {
      return false;
    }
    dst.put(dst.position(), tail, (int) (position - (version.length() - tail.length)), n);
    return true;
  }

  /** Drops the tails of every version of {@code path} and of the paths under it (written again, deleted or renamed through this JVM). */
  void forget(String path) {
    tails.asMap().keySet().removeIf(version -> version.isAtOrUnder(path));
  }

  /** Keeps {@code tail}, the last {@code tail.length} bytes of {@code version}. */
  void put(ObjectVersion version, byte[] tail) {
    tails.put(version, tail);
  }
}
