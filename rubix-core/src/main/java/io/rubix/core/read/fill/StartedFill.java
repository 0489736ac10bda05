package io.rubix.core.read.fill;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.fetch.ArrivingBlock;
import io.rubix.spi.metadata.BlockRange;
import java.util.concurrent.CompletableFuture;

/**
 * A fill {@link BlockFiller#start started}: the blocks of it this JVM was fetching when it started
 * (for it or for another fill), whose bytes can be taken as they arrive even if their fetch ends
 * before anyone asks, and the fill's end: the blocks' state afterwards, or its failure.
 */
public final class StartedFill {
  private final int first;
  private final ArrivingBlock[] arriving;
  private final CompletableFuture<BlockRange> done;

  StartedFill(int first, ArrivingBlock[] arriving, CompletableFuture<BlockRange> done) {
    this.first = first;
    this.arriving = arriving.clone();
    this.done = requireNonNull(done, "done is null");
  }

  /** Block {@code block} as this JVM fetched it when the fill started; null when it was not fetching it (or outside the fill). */
  public ArrivingBlock arriving(int block) {
    int i = block - first;
    return i < 0 || i >= arriving.length ? null : arriving[i];
  }

  /** Completes as {@link BlockFiller#fill} returns or throws. */
  public CompletableFuture<BlockRange> done() {
    return done;
  }
}
