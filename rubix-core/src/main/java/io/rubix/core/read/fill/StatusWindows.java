package io.rubix.core.read.fill;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.BlockRuns;
import io.rubix.core.read.session.ReadSession;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;

/**
 * What a read asks the metadata service about and starts fetching ahead of it: the status window (one
 * answer for the blocks around a read, so that a stream asks once per window), a sequential stream's
 * read-ahead and a vectored read's groups of ranges, both handed to {@link Fills}.
 *
 * <p>Threads: readers' threads; it sets a {@link ReadSession}'s {@code recentStatus} on behalf of
 * {@link io.rubix.core.read.BlockReader}, its owner. It may call the metadata service and {@link Fills}; never the other
 * read classes.
 */
public final class StatusWindows {
  /** Bytes a status call covers beyond the read that needs it (at least 64 blocks): the same round trips per byte whatever the block size. */
  private static final long STATUS_WINDOW_BYTES = 64L << 20;
  /**
   * Objects of at most this many blocks are asked about whole: an answer of at most 5 KiB (a state and a
   * CRC per block) that the service builds run by run, a word per 64 blocks when they are cached.
   */
  static final int WHOLE_OBJECT_STATUS_BLOCKS = 1024;

  private final int blockSize;
  /** Blocks a status call covers beyond the read that needs it. */
  private final int statusWindow;
  private final CacheMetadataService service;
  private final Fills fills;

  public StatusWindows(int blockSize, CacheMetadataService service, Fills fills) {
    this.blockSize = blockSize;
    this.statusWindow = (int) Math.min(CacheMetadataService.MAX_BLOCKS_PER_CALL, Math.max(64, STATUS_WINDOW_BYTES / blockSize));
    this.service = requireNonNull(service, "service is null");
    this.fills = requireNonNull(fills, "fills is null");
  }

  /**
   * Before a vectored read's ranges are read in parallel: starts fetching the missing blocks of the
   * bytes {@code [from, to)} that a group of its ranges spans (ranges whose blocks touch or overlap, as a
   * columnar reader's adjacent column chunks do), one ranged read per run of missing blocks instead of
   * one per range, and returns without waiting. The ranges' reads then copy those blocks from this
   * fetch. Best effort like read-ahead: whatever it does not start, the ranges fetch themselves.
   */
  public void fetchGroup(ReadSession s, long from, long to) {
    int first = block(from);
    int end = block(to - 1) + 1;
    if (end - first > CacheMetadataService.MAX_BLOCKS_PER_CALL) {
      return;
    }
    BlockRange status = s.recentStatus();
    if (status == null || !status.covers(first, end)) {
      try {
        // the ranges' reads use this answer too: a warm group costs one status call, a cold one no more than before
        status = statusFrom(s, first, end);
      } catch (IOException | RuntimeException e) {
        return;
      }
      s.recentStatus(status);
    }
    fetchUncached(s, status, first, end, false);
  }

  /** Starts fetching the blocks of {@code [first, end)} that {@code known} does not say are cached, as a stream's read-ahead when {@code readAhead}. */
  private void fetchUncached(ReadSession s, BlockRange known, int first, int end, boolean readAhead) {
    BlockRuns.split(first, end, b -> known.state(b) == BlockState.CACHED, (from, to, cached) -> {
      if (!cached) {
        fills.fetchAhead(s, from, to, readAhead);
      }
    });
  }

  /**
   * Reads ahead blocks {@code [first, end)} after a read of blocks {@code [readFirst, readEnd)}, all but the
   * ones the recent status says are cached: a warm sequential stream then makes no {@code acquire} round
   * trip for its read-ahead. When that status says the read's own blocks are cached but does not reach
   * the end of the read-ahead, it is renewed from the read's first block (the read then uses the new one), so
   * a warm stream asks once per {@link #statusWindow} blocks or so and nothing more. A cached block that
   * the status wrongly still names (evicted since) is only not read ahead: the read that reaches it
   * finds it gone and fetches it.
   */
  public void readAhead(ReadSession s, int readFirst, int readEnd, int first, int end) {
    BlockRange status = s.recentStatus();
    boolean warm = status != null && status.covers(readFirst, readEnd) && status.allCached(readFirst, readEnd);
    if (warm && !status.covers(readFirst, end) && end - readFirst <= CacheMetadataService.MAX_BLOCKS_PER_CALL) {
      try {
        status = statusFrom(s, readFirst, end);
        s.recentStatus(status);
      } catch (IOException | RuntimeException e) {
        // best effort like the read-ahead itself: the read asks again and handles the failure
        status = null;
      }
    }
    if (status == null || !status.covers(first, end)) {
      fills.fetchAhead(s, first, end, true);
      return;
    }
    fetchUncached(s, status, first, end, true);
  }

  /**
   * The status of blocks {@code [first, end)} and of the blocks around them: all of the object's when it
   * has at most {@link #WHOLE_OBJECT_STATUS_BLOCKS} (so a stream of it, random or sequential, asks once
   * while its blocks stay cached), else up to {@link #statusWindow} blocks ahead of {@code first} (and
   * before it when the object ends sooner). The service counts a read at {@code first} (the eviction
   * policy's frequency) and none of the blocks as read: {@link io.rubix.core.read.CachedBlocks} reports the blocks read, which
   * are not those an answer names (a random reader reads few of them, and reads blocks of an earlier answer
   * without asking again).
   */
  public BlockRange statusFrom(ReadSession s, int first, int end) throws IOException {
    int window = s.blockCount <= WHOLE_OBJECT_STATUS_BLOCKS ? s.blockCount : statusWindow;
    int from = Math.max(0, Math.min(first, s.blockCount - window));
    return service.status(s.version, from, Math.max(end, Math.min(s.blockCount, from + window)), first);
  }

  private int block(long position) {
    return (int) (position / blockSize);
  }
}
