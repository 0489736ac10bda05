package io.rubix.core.read.fill;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.fetch.GrantedRuns;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The work of a started fill, queued on an executor, whose blocks were granted before it was queued.
 * Run, it fills them. Discarded (its executor shut down before it ran, {@link #discardAll}), it gives
 * its grants back at once, so the next reader of those blocks fetches them instead of waiting for the
 * grants' lease to time out. Either happens once.
 */
public final class FillTask implements Runnable {
  /** What the task does when it runs. */
  @FunctionalInterface
  interface Work {
    BlockRange run() throws IOException;
  }

  private final Work work;
  private final GrantedRuns granted;
  private final CompletableFuture<BlockRange> done = new CompletableFuture<>();
  private final AtomicBoolean claimed = new AtomicBoolean();

  FillTask(Work work, GrantedRuns granted) {
    this.work = requireNonNull(work, "work is null");
    this.granted = requireNonNull(granted, "granted is null");
  }

  /** Completes with the blocks' state after the fill, or with a {@link CompletionException} holding why it failed or was discarded. */
  CompletableFuture<BlockRange> done() {
    return done;
  }

  @Override
  public void run() {
    if (!claimed.compareAndSet(false, true)) {
      return;
    }
    try {
      done.complete(work.run());
    } catch (IOException | RuntimeException | Error e) {
      done.completeExceptionally(new CompletionException(e));
    }
  }

  /** Gives back the grants unless the task ran or was discarded already. */
  void discard() {
    if (!claimed.compareAndSet(false, true)) {
      return;
    }
    granted.close();
    done.completeExceptionally(new CompletionException(new IOException("The fill was discarded before it ran: its executor shut down")));
  }

  /** Discards the fills among {@code neverRun} (what {@code ExecutorService.shutdownNow()} returned), leaving other tasks alone. */
  public static void discardAll(List<Runnable> neverRun) {
    for (Runnable task : neverRun) {
      if (task instanceof FillTask fill) {
        fill.discard();
      }
    }
  }
}
