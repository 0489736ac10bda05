package io.rubix.core.read.uncached;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.ArrivingBytes;
import io.rubix.core.read.session.HeldBytes;
import io.rubix.core.read.session.HeldBytes.Chunk;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.Span;
import io.rubix.core.read.session.UncachedMemory;
import io.rubix.core.stats.CacheCounter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bytes the cache does not serve, read from the source the way a plain stream with read-ahead would:
 * the one way every declined read reaches the source (a path whose rule quota is spent, admission
 * refused, no room on disk, the metadata service failing, blocks another node owns and does not serve,
 * a cached block that failed its check).
 *
 * <p>Design: a stream that reads sequentially (its read continues the previous one, {@link
 * ReadSession#sequential}) has the declined blocks ahead of it read into its memory ({@link HeldBytes})
 * with the same window and request sizes as cached read-ahead ({@link #readAhead}, started where the
 * read-ahead learns that the cache declines them), and its own read of declined bytes reads on to the end
 * of the block it ends in: so its small reads are served from memory, not one request each. A read that
 * is not sequential (the first of a stream, a jump, a vectored read's range) reads just its bytes, so
 * random readers pay for nothing they do not read. Bytes a stream holds are bounded by an
 * {@link UncachedMemory} budget per file system instance; without room, reads read just their bytes.
 *
 * <p>Threads: reads run in the reader's thread and wait for the held bytes still arriving; read-ahead
 * requests run on the fetch executor. It calls only the session's {@link Source}; never the other read
 * classes, the metadata service or the cache files.
 */
public final class SourceReads {
  private static final Logger LOG = LoggerFactory.getLogger(SourceReads.class);

  /** How long a read waits for more of a held chunk's bytes before it looks again (a stuck read ends by the source's own timeouts). */
  private static final long ARRIVAL_WAIT_NANOS = TimeUnit.MINUTES.toNanos(10);

  private final int blockSize;
  private final long chunkBytes;
  private final Executor fetchExecutor;

  public SourceReads(int blockSize, int chunkBlocks, Executor fetchExecutor) {
    if (chunkBlocks < 1) {
      throw new IllegalArgumentException("chunkBlocks must be at least 1: " + chunkBlocks);
    }
    this.blockSize = blockSize;
    this.chunkBytes = (long) chunkBlocks * blockSize;
    this.fetchExecutor = requireNonNull(fetchExecutor, "fetchExecutor is null");
  }

  /**
   * Copies {@code span} from the bytes the stream holds when they cover all of it, waiting for those
   * still arriving; false when they do not (what it copied is then overwritten by the read that follows).
   * Makes no request and no metadata call.
   */
  public boolean readHeld(ReadSession s, Span span) throws IOException {
    long at = span.position();
    while (at < span.end()) {
      long to = copyHeld(s, span, at);
      if (to == at) {
        return false;
      }
      at = to;
    }
    return true;
  }

  /**
   * Reads {@code span}, bytes the cache does not serve: from the bytes the stream holds where it holds
   * them, the rest from the source, one request per gap; when the stream reads sequentially, the last
   * request goes on to the end of the block the span ends in, and the stream holds those bytes.
   */
  public void read(ReadSession s, Span span) throws IOException {
    long at = span.position();
    long end = span.end();
    while (at < end) {
      long copied = copyHeld(s, span, at);
      if (copied > at) {
        at = copied;
        continue;
      }
      long to = s.held().nextStart(at, end);
      if (to == end && s.sequential()) {
        long blockEnd = Math.min(s.version.length(), (end + blockSize - 1) / blockSize * blockSize);
        long through = s.held().nextStart(end, blockEnd);
        Chunk rest = through > end ? s.held().add(at, (int) (through - at)) : null;
        if (rest != null) {
          fetch(s, rest);
          s.stats.add(CacheCounter.UNCACHED_READAHEAD_BYTES, through - end);
          // from the chunk itself, which is all in: another thread of the stream may have dropped it from the held ones meanwhile
          at = copy(s, rest, span, at);
          continue;
        }
      }
      directRead(s, span.range(at, to));
      at = to;
    }
  }

  /**
   * Copies into {@code span}, from {@code at}, what the held chunk covering {@code at} has of it, waiting
   * for its bytes to arrive; returns where the copy ended: {@code at} when no chunk covers it or its read
   * failed (the chunk is then dropped, and the caller reads those bytes itself).
   */
  private static long copyHeld(ReadSession s, Span span, long at) throws InterruptedIOException {
    Chunk chunk = s.held().covering(at);
    return chunk == null ? at : copy(s, chunk, span, at);
  }

  /** {@link #copyHeld} from {@code chunk}, which covers {@code at}. */
  private static long copy(ReadSession s, Chunk chunk, Span span, long at) throws InterruptedIOException {
    long to = Math.min(span.end(), chunk.end());
    int need = (int) (to - chunk.start());
    try {
      int have = 0;
      while (have < need) {
        have = chunk.arriving().await(have, ARRIVAL_WAIT_NANOS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for bytes [" + chunk.start() + ", " + chunk.end() + ") of " + s.version.path());
    } catch (IOException e) {
      s.held().remove(chunk);
      return at;
    }
    span.range(at, to).put(chunk.arriving().bytes(), (int) (at - chunk.start()));
    return to;
  }

  /**
   * Starts reading bytes {@code [from, to)} of the object into the stream's memory, all but those it
   * holds already, one request per chunk on the fetch executor; returns without waiting. Stops where the
   * memory budget or the executor has no room: what it does not read, the reads read themselves.
   *
   * <p>Read-ahead starts before the read that asked for it: when it begins right after that read's block,
   * the read's own bytes go in its first request too (the read then takes them from it), one request
   * where there would be two. They are likely declined too, as the bytes right after them are.
   *
   * <p>A stream's read-ahead ({@code stream}) asks for at least one chunk: a reader of memory consumes
   * faster than the window grows, so window-sized requests would each stall it for a first-byte latency
   * while the window ramps up; one chunk streams in (a read takes its bytes as they arrive) while the
   * next requests start, as a plain sequential stream would read on. A stream that stops early has read
   * at most one chunk too many. A vectored read's group reads just its bytes.
   *
   * @return the bytes it started reading
   */
  public long readAhead(ReadSession s, long from, long to, boolean stream) {
    long[] read = s.lastRead();
    long at = read[0] >= 0 && read[0] < from && from <= (read[1] + blockSize - 1) / blockSize * blockSize ? read[0] : from;
    long end = Math.min(stream ? Math.max(to, at + chunkBytes) : to, s.version.length());
    long started = 0;
    while (at < end) {
      Chunk held = s.held().covering(at);
      if (held != null) {
        at = held.end();
        continue;
      }
      long gapEnd = s.held().nextStart(at, end);
      // a remainder of less than half a chunk joins the request before it: one request fewer, none over 1.5 chunks
      long pieceEnd = gapEnd - at < chunkBytes + chunkBytes / 2 ? gapEnd : at + chunkBytes;
      Chunk chunk = s.held().add(at, (int) (pieceEnd - at));
      if (chunk == null) {
        break;
      }
      try {
        fetchExecutor.execute(() -> {
          try {
            fetch(s, chunk);
          } catch (IOException | RuntimeException e) {
            LOG.debug("Reading bytes [{}, {}) of {} ahead failed", chunk.start(), chunk.end(), s.version.path(), e);
          }
        });
      } catch (RejectedExecutionException e) {
        s.held().remove(chunk);
        chunk.arriving().fail(e);
        break;
      }
      s.stats.add(CacheCounter.UNCACHED_READAHEAD_BYTES, chunk.length());
      started += chunk.length();
      at = pieceEnd;
    }
    return started;
  }

  /** Forgets the bytes the stream holds ({@code unbuffer}, close). */
  public void forget(ReadSession s) {
    s.held().clear();
  }

  /** Reads {@code chunk} from the source with one request, announcing its bytes as they arrive; a failed chunk is dropped. */
  private static void fetch(ReadSession s, Chunk chunk) throws IOException {
    byte[] bytes = new byte[chunk.length()];
    ArrivingBytes arriving = chunk.arriving();
    arriving.start(bytes);
    try {
      s.source.readFully(chunk.start(), bytes, 0, bytes.length, arriving::arrived);
    } catch (IOException | RuntimeException | Error e) {
      s.held().remove(chunk);
      arriving.fail(e);
      throw e;
    }
    arriving.complete();
    s.stats.add(CacheCounter.SOURCE_REQUESTS, 1);
    s.stats.add(CacheCounter.SOURCE_BYTES, bytes.length);
  }

  /** Fills {@code span} with one source request (none when it is empty) and counts it. */
  private static void directRead(ReadSession s, Span span) throws IOException {
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

