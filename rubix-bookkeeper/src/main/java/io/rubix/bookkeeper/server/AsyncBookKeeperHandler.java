package io.rubix.bookkeeper.server;

import static java.util.Objects.requireNonNull;

import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TBlockRange;
import io.rubix.spi.thrift.TCacheException;
import io.rubix.spi.thrift.TCacheInsight;
import io.rubix.spi.thrift.TCacheUsage;
import io.rubix.spi.thrift.TCachedFile;
import io.rubix.spi.thrift.TObjectVersion;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ThriftCodec;
import java.util.List;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BookKeeper's Thrift calls, answered asynchronously so that a client waiting for in-flight blocks
 * holds no server thread: {@code awaitInFlight} registers a wait with
 * {@link InProcessMetadataService#whenSettled} and returns; the answer is sent when a commit, abort,
 * lease expiry or the deadline settles it. Every other call is answered at once by
 * {@link BookKeeperHandler} on the thread that reads it.
 */
public final class AsyncBookKeeperHandler implements BookKeeperService.AsyncIface {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncBookKeeperHandler.class);

  private final BookKeeperHandler handler;
  private final InProcessMetadataService service;
  private final ServerCounters counters;

  public AsyncBookKeeperHandler(BookKeeperHandler handler, InProcessMetadataService service, ServerCounters counters) {
    this.handler = requireNonNull(handler, "handler is null");
    this.service = requireNonNull(service, "service is null");
    this.counters = requireNonNull(counters, "counters is null");
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws TException;
  }

  private static <T> void answer(AsyncMethodCallback<T> callback, Call<T> call) {
    T result;
    try {
      result = call.run();
    } catch (TException | RuntimeException e) {
      callback.onError(e instanceof TException t ? t : new TCacheException("failed: " + e));
      return;
    }
    callback.onComplete(result);
  }

  @Override
  public void awaitInFlight(TObjectVersion version, int firstBlock, int endBlock, long timeoutMillis, AsyncMethodCallback<TBlockRange> callback) {
    counters.waitCalls.increment();
    try {
      long wait = Math.max(0, Math.min(timeoutMillis, BookKeeperHandler.MAX_WAIT_MILLIS));
      counters.waiting.increment();
      service.whenSettled(ThriftCodec.fromThrift(version), firstBlock, endBlock, wait).whenComplete((range, failure) -> {
        counters.waiting.decrement();
        if (failure != null) {
          counters.errors.increment();
          LOG.error("awaitInFlight failed", failure);
          callback.onError(new TCacheException("awaitInFlight failed: " + failure));
        } else {
          callback.onComplete(ThriftCodec.toThrift(range));
        }
      });
    } catch (IllegalArgumentException | NullPointerException | IndexOutOfBoundsException e) {
      counters.waiting.decrement();
      counters.badRequests.increment();
      callback.onError(new TCacheException("Bad awaitInFlight request: " + e.getMessage()));
    }
  }

  @Override
  public void info(AsyncMethodCallback<TServiceInfo> callback) {
    answer(callback, handler::info);
  }

  @Override
  public void status(TObjectVersion version, int firstBlock, int endBlock, int readBlock, AsyncMethodCallback<TBlockRange> callback) {
    answer(callback, () -> handler.status(version, firstBlock, endBlock, readBlock));
  }

  @Override
  public void acquire(TObjectVersion version, int firstBlock, int endBlock, AsyncMethodCallback<TBlockRange> callback) {
    answer(callback, () -> handler.acquire(version, firstBlock, endBlock));
  }

  @Override
  public void commit(long leaseId, List<Integer> blocks, List<Integer> crc32c, AsyncMethodCallback<Integer> callback) {
    answer(callback, () -> handler.commit(leaseId, blocks, crc32c));
  }

  @Override
  public void abort(long leaseId, List<Integer> blocks, boolean written, AsyncMethodCallback<Void> callback) {
    answer(callback, () -> {
      handler.abort(leaseId, blocks, written);
      return null;
    });
  }

  @Override
  public void reportCorrupt(TObjectVersion version, int block, AsyncMethodCallback<Void> callback) {
    answer(callback, () -> {
      handler.reportCorrupt(version, block);
      return null;
    });
  }

  @Override
  public void invalidate(TObjectVersion version, AsyncMethodCallback<Void> callback) {
    answer(callback, () -> {
      handler.invalidate(version);
      return null;
    });
  }

  @Override
  public void invalidatePath(String path, AsyncMethodCallback<Integer> callback) {
    answer(callback, () -> handler.invalidatePath(path));
  }

  @Override
  public void immutableLength(String path, AsyncMethodCallback<Long> callback) {
    answer(callback, () -> handler.immutableLength(path));
  }

  @Override
  public void usage(AsyncMethodCallback<TCacheUsage> callback) {
    answer(callback, handler::usage);
  }

  @Override
  public void stats(AsyncMethodCallback<Map<String, Long>> callback) {
    answer(callback, handler::stats);
  }

  @Override
  public void topFiles(int limit, AsyncMethodCallback<List<TCachedFile>> callback) {
    answer(callback, () -> handler.topFiles(limit));
  }

  @Override
  public void clear(AsyncMethodCallback<Integer> callback) {
    answer(callback, handler::clear);
  }

  @Override
  public void reportReads(TObjectVersion version, List<Integer> blocks, AsyncMethodCallback<Void> callback) {
    answer(callback, () -> {
      handler.reportReads(version, blocks);
      return null;
    });
  }

  @Override
  public void reportCounters(Map<String, Long> deltas, AsyncMethodCallback<Void> callback) {
    answer(callback, () -> {
      handler.reportCounters(deltas);
      return null;
    });
  }

  @Override
  public void insight(AsyncMethodCallback<TCacheInsight> callback) {
    answer(callback, handler::insight);
  }
}
