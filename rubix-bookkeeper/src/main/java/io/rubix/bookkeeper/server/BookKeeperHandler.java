package io.rubix.bookkeeper.server;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.spi.metadata.CacheInsights;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TBlockRange;
import io.rubix.spi.thrift.TCacheInsight;
import io.rubix.spi.thrift.TCacheException;
import io.rubix.spi.thrift.TCacheUsage;
import io.rubix.spi.thrift.TCachedFile;
import io.rubix.spi.thrift.TObjectVersion;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ThriftCodec;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@link BookKeeperService} calls from a {@link CacheMetadataService}. A bad request (range
 * outside the object, malformed version) or an internal failure is answered with a
 * {@link TCacheException}; nothing a client sends can stop the daemon.
 */
public final class BookKeeperHandler implements BookKeeperService.Iface {
  private static final Logger LOG = LoggerFactory.getLogger(BookKeeperHandler.class);
  /** Longest server-side wait for in-flight blocks per call; clients wait longer in several calls. */
  static final long MAX_WAIT_MILLIS = 2_000;

  private final CacheMetadataService service;
  private final CacheAdministration administration;
  private final CacheInsights insights;
  private final TServiceInfo info;
  private final ServerCounters counters;
  private final Supplier<Map<String, Long>> stats;
  private final EngineCounters engineCounters;

  public <S extends CacheMetadataService & CacheAdministration & CacheInsights> BookKeeperHandler(S service, TServiceInfo info,
      ServerCounters counters, Supplier<Map<String, Long>> stats, EngineCounters engineCounters) {
    this.engineCounters = requireNonNull(engineCounters, "engineCounters is null");
    this.service = requireNonNull(service, "service is null");
    this.administration = service;
    this.insights = service;
    this.info = requireNonNull(info, "info is null");
    this.counters = requireNonNull(counters, "counters is null");
    this.stats = requireNonNull(stats, "stats is null");
  }

  @Override
  public TServiceInfo info() {
    return info;
  }

  @Override
  public TBlockRange status(TObjectVersion version, int firstBlock, int endBlock, int readBlock) throws TCacheException {
    counters.statusCalls.increment();
    // -1: a client from before readBlock existed, which reads from firstBlock and does not report its reads
    return guard("status", () -> ThriftCodec.toThrift(readBlock == -1
        ? service.status(ThriftCodec.fromThrift(version), firstBlock, endBlock)
        : service.status(ThriftCodec.fromThrift(version), firstBlock, endBlock, readBlock)));
  }

  @Override
  public void reportReads(TObjectVersion version, List<Integer> blocks) throws TCacheException {
    guard("reportReads", () -> {
      service.reportReads(ThriftCodec.fromThrift(version), ThriftCodec.toArray(blocks));
      return null;
    });
  }

  @Override
  public TBlockRange acquire(TObjectVersion version, int firstBlock, int endBlock) throws TCacheException {
    counters.acquireCalls.increment();
    return guard("acquire", () -> ThriftCodec.toThrift(service.acquire(ThriftCodec.fromThrift(version), firstBlock, endBlock)));
  }

  @Override
  public int commit(long leaseId, List<Integer> blocks, List<Integer> crc32c) throws TCacheException {
    counters.commitCalls.increment();
    return guard("commit", () -> service.commit(leaseId, ThriftCodec.toArray(blocks), ThriftCodec.toArray(crc32c)));
  }

  @Override
  public void abort(long leaseId, List<Integer> blocks, boolean written) throws TCacheException {
    counters.abortCalls.increment();
    guard("abort", () -> {
      service.abort(leaseId, ThriftCodec.toArray(blocks), written);
      return null;
    });
  }

  /** A blocking wait on the calling thread; the daemon's server answers waits without a thread ({@link AsyncBookKeeperHandler}). */
  @Override
  public TBlockRange awaitInFlight(TObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) throws TCacheException {
    counters.waitCalls.increment();
    counters.waiting.increment();
    try {
      return guard("awaitInFlight", () -> ThriftCodec.toThrift(service.awaitInFlight(ThriftCodec.fromThrift(version), firstBlock, endBlock,
          Math.max(0, Math.min(timeoutMillis, MAX_WAIT_MILLIS)))));
    } finally {
      counters.waiting.decrement();
    }
  }

  @Override
  public void reportCorrupt(TObjectVersion version, int block) throws TCacheException {
    counters.corruptReports.increment();
    guard("reportCorrupt", () -> {
      service.reportCorrupt(ThriftCodec.fromThrift(version), block);
      return null;
    });
  }

  @Override
  public void invalidate(TObjectVersion version) throws TCacheException {
    guard("invalidate", () -> {
      service.invalidate(ThriftCodec.fromThrift(version));
      return null;
    });
  }

  @Override
  public int invalidatePath(String path) throws TCacheException {
    return guard("invalidatePath", () -> service.invalidatePath(requireNonNull(path, "path is null")));
  }

  @Override
  public long immutableLength(String path) throws TCacheException {
    return guard("immutableLength", () -> service.immutableLength(requireNonNull(path, "path is null")));
  }

  @Override
  public TCacheUsage usage() throws TCacheException {
    return guard("usage", () -> ThriftCodec.toThrift(service.usage()));
  }

  @Override
  public Map<String, Long> stats() {
    return stats.get();
  }

  @Override
  public List<TCachedFile> topFiles(int limit) throws TCacheException {
    return guard("topFiles", () -> ThriftCodec.toThrift(administration.topFiles(limit)));
  }

  @Override
  public int clear() throws TCacheException {
    counters.clearCalls.increment();
    return guard("clear", administration::clear);
  }

  @Override
  public void reportCounters(Map<String, Long> deltas) throws TCacheException {
    guard("reportCounters", () -> {
      engineCounters.add(deltas);
      return null;
    });
  }

  @Override
  public TCacheInsight insight() throws TCacheException {
    return guard("insight", () -> ThriftCodec.toThrift(insights.insight()));
  }

  @FunctionalInterface
  private interface Action<T> {
    T run() throws IOException, InterruptedException;
  }

  private <T> T guard(String call, Action<T> action) throws TCacheException {
    try {
      return action.run();
    } catch (IllegalArgumentException | NullPointerException | IndexOutOfBoundsException e) {
      counters.badRequests.increment();
      throw new TCacheException("Bad " + call + " request: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TCacheException(call + " interrupted");
    } catch (IOException | RuntimeException e) {
      counters.errors.increment();
      LOG.error("{} failed", call, e);
      throw new TCacheException(call + " failed: " + e);
    }
  }
}
