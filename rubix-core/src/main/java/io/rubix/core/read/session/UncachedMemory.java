package io.rubix.core.read.session;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory budget for bytes read from the source that the cache does not keep and that streams hold
 * for their next reads ({@code rubix.cache.uncached.readahead.memory}): one per {@link io.rubix.core.read.BlockReader}, so
 * per file system instance, shared by its streams. A stream reserves before it reads ahead and gives
 * back when it drops the bytes ({@link HeldBytes} does both, exactly once per chunk), or when the stream is
 * collected without a close ({@link #track}).
 */
public final class UncachedMemory {
  private final long limit;
  private final AtomicLong reserved = new AtomicLong();
  /** Gives back the memory of sessions collected without a close (their held bytes would otherwise stay reserved). */
  private final Cleaner unclosed = Cleaner.create();

  public UncachedMemory(long limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit is negative: " + limit);
    }
    this.limit = limit;
  }

  /** Reserves {@code bytes}; false, reserving nothing, when that would pass the limit. */
  boolean reserve(long bytes) {
    while (true) {
      long now = reserved.get();
      if (now + bytes > limit) {
        return false;
      }
      if (reserved.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    reserved.addAndGet(-bytes);
  }

  /** Gives back what {@code session} holds when it is collected, closed or not; returns it. */
  public ReadSession track(ReadSession session) {
    // the action holds the held bytes, not the session: the session (and its stream) can then be collected
    unclosed.register(session, session.held()::clear);
    return session;
  }

  /** Bytes reserved now. */
  public long reserved() {
    return reserved.get();
  }
}
