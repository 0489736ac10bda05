package io.rubix.core.client;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.DataFileLayout;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link CacheMetadataService} backed by the node's BookKeeper daemon over Thrift.
 *
 * <p>Trust: every connection starts with the {@link ConnectionAuth} handshake, so this JVM talks only
 * to a process that holds the node's BookKeeper secret; and every data-file path an answer names is
 * checked against this JVM's own cache directories ({@link DataFileLayout#checkDataFile}) before the
 * read path sees it, so no answer can make this JVM open or write a file elsewhere.
 *
 * <p>Design: each call runs on one of {@link DaemonConnections}' pooled connections, which back off
 * after a transport failure so readers go to the source instead of queueing behind a dead daemon.
 * Long waits for in-flight blocks are split into calls shorter than the read timeout.
 */
public final class BookKeeperClient implements CacheMetadataService, CacheAdministration {
  private static final Logger LOG = LoggerFactory.getLogger(BookKeeperClient.class);

  private final ClientConfig config;
  private final int blockSize;
  private final LongSupplier nanoClock;
  private final DaemonConnections connections;
  /** The daemon's data files this JVM may open: under its own configured cache directories. */
  private final DataFileLayout layout;

  /**
   * @param blockSize the block size this JVM is configured with; a daemon with another block size
   *     is treated as unavailable (its blocks would be misread)
   */
  public BookKeeperClient(ClientConfig config, int blockSize, LongSupplier nanoClock) {
    this.config = requireNonNull(config, "config is null");
    this.blockSize = blockSize;
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    this.connections = new DaemonConnections(config, blockSize, nanoClock);
    this.layout = config.cacheDirs().isEmpty() ? null : new DataFileLayout(DataFileLayout.daemonRoots(config.cacheDirs()));
  }

  /** Transport failures seen so far (each makes reads go to the source for a while). */
  public long failures() {
    return connections.failures();
  }

  /**
   * Asks the BookKeeper described by {@code config} who it is over a one-off connection, whatever its
   * block size: tools use it to learn the block size to build a client with.
   */
  public static TServiceInfo probe(ClientConfig config) throws IOException {
    return DaemonConnections.probe(config);
  }

  private <T> T call(DaemonConnections.Call<T> call) throws IOException {
    return connections.call(call);
  }

  public TServiceInfo info() throws IOException {
    return call(BookKeeperService.Client::info);
  }

  public Map<String, Long> daemonStats() throws IOException {
    return call(BookKeeperService.Client::stats);
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    return status(version, firstBlock, endBlock, -1); // -1: counted as an older client's, the whole range read
  }

  @Override
  public BlockRange status(ObjectVersion version, int firstBlock, int endBlock, int readBlock) throws IOException {
    return checked(ThriftCodec.fromThrift(version, call(c -> c.status(ThriftCodec.toThrift(version), firstBlock, endBlock, readBlock))));
  }

  /** {@inheritDoc} {@link UnknownCallException} from a daemon that predates the call. */
  @Override
  public void reportReads(ObjectVersion version, int[] blocks) throws IOException {
    call(c -> {
      c.reportReads(ThriftCodec.toThrift(version), ThriftCodec.toList(blocks));
      return null;
    });
  }

  @Override
  public BlockRange acquire(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    return checked(ThriftCodec.fromThrift(version, call(c -> c.acquire(ThriftCodec.toThrift(version), firstBlock, endBlock))));
  }

  /** {@code range} if its data file (when it names one) is that version's under this JVM's cache directories; else fails. */
  private BlockRange checked(BlockRange range) throws IOException {
    if (range.dataFile().isEmpty()) {
      return range;
    }
    if (layout == null) {
      throw new IOException("BookKeeper answered data file " + range.dataFile() + " for " + range.version()
          + ", but this JVM has no cache directories configured (rubix.cache.dirs) to check it against");
    }
    try {
      layout.checkDataFile(range.version(), range.dataFile());
    } catch (IOException e) {
      LOG.warn("BookKeeper at {}:{} answered a data file outside this JVM's cache directories: {}", config.host(), config.port(), e.getMessage());
      throw e;
    }
    return range;
  }

  @Override
  public int commit(long leaseId, int[] blocks, int[] crc32c) throws IOException {
    return call(c -> c.commit(leaseId, ThriftCodec.toList(blocks), ThriftCodec.toList(crc32c)));
  }

  @Override
  public void abort(long leaseId, int[] blocks, boolean written) throws IOException {
    call(c -> {
      c.abort(leaseId, ThriftCodec.toList(blocks), written);
      return null;
    });
  }

  @Override
  public BlockRange awaitInFlight(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) throws IOException, InterruptedException {
    long deadline = nanoClock.getAsLong() + timeoutMillis * 1_000_000L;
    long slice = Math.max(1, config.readTimeout().toMillis() / 2);
    while (true) {
      // rounded up: a wait is never shorter than asked (rounding down answered a 300 ms wait after 299 ms)
      long remaining = Math.max(0, (deadline - nanoClock.getAsLong() + 999_999L) / 1_000_000L);
      long wait = Math.min(remaining, slice);
      BlockRange range = checked(ThriftCodec.fromThrift(version, call(c -> c.awaitInFlight(ThriftCodec.toThrift(version), firstBlock, endBlock, wait))));
      if (remaining <= slice || !anyInFlight(range)) {
        return range;
      }
      if (Thread.interrupted()) {
        throw new InterruptedException("Interrupted waiting for blocks of " + version.path());
      }
    }
  }

  @Override
  public void reportCorrupt(ObjectVersion version, int block) throws IOException {
    call(c -> {
      c.reportCorrupt(ThriftCodec.toThrift(version), block);
      return null;
    });
  }

  @Override
  public void invalidate(ObjectVersion version) throws IOException {
    call(c -> {
      c.invalidate(ThriftCodec.toThrift(version));
      return null;
    });
  }

  @Override
  public int invalidatePath(String path) throws IOException {
    return call(c -> c.invalidatePath(path));
  }

  @Override
  public long immutableLength(String path) throws IOException {
    return call(c -> c.immutableLength(path));
  }

  @Override
  public CacheUsage usage() throws IOException {
    return ThriftCodec.fromThrift(call(BookKeeperService.Client::usage));
  }

  @Override
  public List<CachedFile> topFiles(int limit) throws IOException {
    return ThriftCodec.fromThriftFiles(call(c -> c.topFiles(limit)));
  }

  /**
   * The daemon's per-table counters and working-set estimate. Not a {@code CacheInsights}:
   * a reading JVM has no use for them, only tools ask.
   *
   * @throws UnknownCallException when the daemon is older than the call
   */
  public CacheInsightReport insight() throws IOException {
    return ThriftCodec.fromThrift(call(BookKeeperService.Client::insight));
  }

  @Override
  public int clear() throws IOException {
    return call(BookKeeperService.Client::clear);
  }

  /**
   * Adds {@code deltas} (counter name to what this JVM counted since its last report) to the daemon's
   * node-wide totals; {@link UnknownCallException} from a daemon that predates the call.
   */
  public void reportCounters(Map<String, Long> deltas) throws IOException {
    call(c -> {
      c.reportCounters(deltas);
      return null;
    });
  }

  @Override
  public void close() {
    connections.close();
  }

  private static boolean anyInFlight(BlockRange range) {
    for (byte state : range.states()) {
      if (state == BlockState.IN_FLIGHT.code()) {
        return true;
      }
    }
    return false;
  }
}
