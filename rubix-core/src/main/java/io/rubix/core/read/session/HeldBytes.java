package io.rubix.core.read.session;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes of one stream's object read from the source and kept in memory for the stream's next reads,
 * because the cache does not keep them: read ahead of a sequential stream, or the rest of the block its
 * last read ended in. Chunks never overlap; each holds its share of an {@link UncachedMemory} budget
 * from {@link #add} until it leaves, whichever way it leaves (passed, failed, the stream jumped, was
 * unbuffered, closed or collected).
 *
 * <p>Ownership: one per {@link ReadSession}. {@link io.rubix.core.read.uncached.SourceReads} adds, serves and removes
 * chunks; {@link io.rubix.core.read.fetch.SourceFetches} keeps the blocks whose cache write failed ({@link #keep}); the
 * session's window bookkeeping drops the chunks a stream has passed and all of them when it jumps. It is in the base
 * package because all three hold it.
 * Thread-safe: a lock of its own, held for map operations only (never while bytes arrive).
 */
public final class HeldBytes {
  /** Bytes {@code [start, start + length)} of the object, arriving or arrived (their read announces them to {@code arriving}). */
  public record Chunk(long start, int length, ArrivingBytes arriving) {
    public Chunk {
      requireNonNull(arriving, "arriving is null");
    }

    public long end() {
      return start + length;
    }
  }

  private final UncachedMemory memory;
  private final int blockSize;
  @GuardedBy("this")
  private final TreeMap<Long, Chunk> chunks = new TreeMap<>();
  /** Whether {@link #chunks} holds any: read without the lock on every read of the stream, written under it. */
  private volatile boolean holding;

  HeldBytes(UncachedMemory memory, int blockSize) {
    this.memory = requireNonNull(memory, "memory is null");
    this.blockSize = blockSize;
  }

  /**
   * Holds a new chunk of {@code length} bytes at {@code start}, which no held chunk overlaps, if the
   * budget has room; null when it has not.
   */
  public synchronized Chunk add(long start, int length) {
    if (!memory.reserve(length)) {
      return null;
    }
    Chunk chunk = new Chunk(start, length, new ArrivingBytes(blockOf(start)));
    chunks.put(start, chunk);
    holding = true;
    return chunk;
  }

  /**
   * Holds {@code bytes}, the object's bytes from {@code start}, already read (for the cache, whose write
   * failed), if no held chunk overlaps them and the budget has room; false when it does not hold them.
   */
  public synchronized boolean keep(long start, byte[] bytes) {
    Chunk before = covering(start);
    Long next = chunks.higherKey(start);
    if (before != null || (next != null && next < start + bytes.length) || !memory.reserve(bytes.length)) {
      return false;
    }
    ArrivingBytes arrived = new ArrivingBytes(blockOf(start));
    arrived.start(bytes);
    arrived.complete();
    chunks.put(start, new Chunk(start, bytes.length, arrived));
    holding = true;
    return true;
  }

  /** For messages: the block a chunk starts in. */
  private int blockOf(long start) {
    return (int) (start / blockSize);
  }

  /** The held chunk with {@code position} in it, or null. */
  public synchronized Chunk covering(long position) {
    Map.Entry<Long, Chunk> floor = chunks.floorEntry(position);
    return floor != null && position < floor.getValue().end() ? floor.getValue() : null;
  }

  /** Where the first held chunk after {@code position} starts, or {@code limit} when none starts before it. */
  public synchronized long nextStart(long position, long limit) {
    Long next = chunks.higherKey(position);
    return next == null ? limit : Math.min(limit, next);
  }

  /** Drops {@code chunk} if it is still held. */
  public synchronized void remove(Chunk chunk) {
    if (chunks.remove(chunk.start(), chunk)) {
      memory.release(chunk.length());
      holding = !chunks.isEmpty();
    }
  }

  /** Drops the chunks that end at or before {@code position}: a sequential stream has passed them. */
  synchronized void dropBefore(long position) {
    Iterator<Chunk> it = chunks.values().iterator();
    while (it.hasNext()) {
      Chunk chunk = it.next();
      if (chunk.end() > position) {
        return;
      }
      it.remove();
      memory.release(chunk.length());
    }
    holding = !chunks.isEmpty();
  }

  /** Drops every chunk. */
  public synchronized void clear() {
    for (Chunk chunk : chunks.values()) {
      memory.release(chunk.length());
    }
    chunks.clear();
    holding = false;
  }

  /** Whether no chunk is held: one volatile read, for the reads of a stream that holds none (most). */
  public boolean isEmpty() {
    return !holding;
  }
}
