package io.rubix.core.read.fetch;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.StaleVersionException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The chunks one read fetches on other threads. They write into the caller's buffer, so the read
 * {@link #close waits} for every one of them before it returns or throws, whatever happened; after
 * a failure, {@link #cancel} makes the chunks that have not started give their blocks back instead
 * of fetching them. Submitted to and closed by one thread.
 */
public final class ChunkFetches implements AutoCloseable {
  /** A fetch that ends the run it was given, or hands it on to whoever ends it, on every path. */
  @FunctionalInterface
  public interface Fetch {
    void fetch(GrantedRun run) throws IOException;
  }

  private final Executor executor;
  private final List<CompletableFuture<Void>> pending = new ArrayList<>();
  private volatile boolean cancelled;

  public ChunkFetches(Executor executor) {
    this.executor = requireNonNull(executor, "executor is null");
  }

  /** Runs {@code fetch} of {@code run} on the executor, which owns the run from then on; false when the executor refused it (the caller still owns the run). */
  public boolean submit(GrantedRun run, Fetch fetch) {
    try {
      pending.add(CompletableFuture.runAsync(() -> {
        if (cancelled) {
          run.close();
          return;
        }
        try {
          fetch.fetch(run);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      }, executor));
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /** Chunks that have not started give their blocks back instead of fetching them. */
  public void cancel() {
    cancelled = true;
  }

  /**
   * Waits for every submitted chunk (not interruptibly: they write into the caller's buffer) and
   * throws the first failure, preferring a {@link StaleVersionException}, which says more.
   */
  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (CompletableFuture<Void> future : pending) {
      try {
        future.join();
      } catch (CompletionException | CancellationException e) {
        IOException cause = e.getCause() instanceof IOException io ? io : new IOException("Fetching a chunk failed", e.getCause() == null ? e : e.getCause());
        if (failure == null) {
          failure = cause;
        } else if (cause instanceof StaleVersionException && !(failure instanceof StaleVersionException)) {
          cause.addSuppressed(failure);
          failure = cause;
        } else if (cause != failure) {
          failure.addSuppressed(cause);
        }
      }
    }
    pending.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
