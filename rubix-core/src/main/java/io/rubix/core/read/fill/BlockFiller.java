package io.rubix.core.read.fill;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.fetch.ArrivingBlock;
import io.rubix.core.read.fetch.SourceFetches;
import io.rubix.core.read.session.ReadSession;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Brings blocks of an object version into the cache without reading them for anyone: what an owner
 * node does for a peer that asks it for blocks it lacks. It is the read path's own fetch (acquire,
 * one source read per chunk, write, commit), so a block a local reader, another peer's request and
 * this fill all want is fetched from the source once. Thread-safe.
 */
public final class BlockFiller {
  private final Fills fills;
  private final SourceFetches fetches;
  private final int blockSize;

  public BlockFiller(Fills fills, SourceFetches fetches, int blockSize) {
    this.fills = requireNonNull(fills, "fills is null");
    this.fetches = requireNonNull(fetches, "fetches is null");
    this.blockSize = blockSize;
  }

  /**
   * Makes blocks {@code [first, end)} of {@code version} cached, reading missing ones from
   * {@code source}, and returns their state afterwards (blocks the cache could not take stay missing).
   *
   * @param wait how long to wait for blocks another reader is fetching
   * @throws IOException when the metadata service or the source fails ({@link StaleVersionException}
   *     when the source no longer has the version)
   */
  public BlockRange fill(ObjectVersion version, Source source, StreamStats stats, int first, int end, Duration wait) throws IOException {
    return fills.fill(new ReadSession(version, source, stats, blockSize), first, end, wait.toMillis());
  }

  /**
   * {@link #fill}, started: acquires the blocks in the caller's thread, then fetches, writes and
   * commits them and waits for the others in one task on {@code executor}. The blocks this JVM fetches
   * (for this fill or another) can be taken as they arrive from what this returns.
   *
   * @throws IOException when the metadata service fails
   * @throws java.util.concurrent.RejectedExecutionException when {@code executor} refuses the task
   */
  public StartedFill start(ObjectVersion version, Source source, StreamStats stats, int first, int end, Duration wait, Executor executor)
      throws IOException {
    return fills.startFill(new ReadSession(version, source, stats, blockSize), first, end, wait.toMillis(), executor);
  }

  /** {@code block} of {@code version} while this JVM fetches it, its bytes as they arrive; null when it does not. */
  public ArrivingBlock arriving(ObjectVersion version, int block) {
    return fetches.arriving(version, block);
  }
}
