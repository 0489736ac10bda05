package io.rubix.core.client;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.DataFileLayout;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TCacheException;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import java.io.IOException;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
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
 * <p>Design: a bounded pool of framed connections, each used by one call at a time. A transport
 * failure closes that connection and starts a backoff (doubling up to {@code backoffMax}) during
 * which calls fail at once with {@link BookKeeperUnavailableException}, so readers go to the source
 * instead of queueing behind a dead daemon; the first call after the backoff tries again. Long waits
 * for in-flight blocks are split into calls shorter than the read timeout.
 */
public final class BookKeeperClient implements CacheMetadataService, CacheAdministration {
  private static final Logger LOG = LoggerFactory.getLogger(BookKeeperClient.class);
  private static final long BACKOFF_START_NANOS = 50_000_000L;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ClientConfig config;
  private final int blockSize;
  private final LongSupplier nanoClock;
  private final BlockingQueue<Connection> idle;
  private final AtomicLong retryAtNanos = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong backoffNanos = new AtomicLong(BACKOFF_START_NANOS);
  private final AtomicLong failures = new AtomicLong();
  /** Whether the last call failed: a failure is logged at warn when the daemon stops answering, not on every retry. */
  private final AtomicBoolean down = new AtomicBoolean();
  /** The daemon's data files this JVM may open: under its own configured cache directories. */
  private final DataFileLayout layout;
  private volatile boolean closed;

  /**
   * @param blockSize the block size this JVM is configured with; a daemon with another block size
   *     is treated as unavailable (its blocks would be misread)
   */
  public BookKeeperClient(ClientConfig config, int blockSize, LongSupplier nanoClock) {
    this.config = requireNonNull(config, "config is null");
    this.blockSize = blockSize;
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    this.idle = new ArrayBlockingQueue<>(config.poolSize());
    this.layout = config.cacheDirs().isEmpty() ? null : new DataFileLayout(DataFileLayout.daemonRoots(config.cacheDirs()));
  }

  /** Transport failures seen so far (each makes reads go to the source for a while). */
  public long failures() {
    return failures.get();
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
    closed = true;
    Connection connection;
    while ((connection = idle.poll()) != null) {
      connection.close();
    }
  }

  private static boolean anyInFlight(BlockRange range) {
    for (byte state : range.states()) {
      if (state == BlockState.IN_FLIGHT.code()) {
        return true;
      }
    }
    return false;
  }

  @FunctionalInterface
  private interface Call<T> {
    T apply(BookKeeperService.Client client) throws TException;
  }

  private <T> T call(Call<T> call) throws IOException {
    if (closed) {
      throw new BookKeeperUnavailableException("BookKeeper client is closed", null);
    }
    long retryAt = retryAtNanos.get();
    if (retryAt != Long.MIN_VALUE && nanoClock.getAsLong() - retryAt < 0) {
      throw new BookKeeperUnavailableException("BookKeeper at " + config.host() + ":" + config.port() + " is backing off after failures", null);
    }
    Connection connection = idle.poll();
    try {
      if (connection == null) {
        connection = connect();
      }
      T result = call.apply(connection.client);
      backoffNanos.set(BACKOFF_START_NANOS);
      retryAtNanos.set(Long.MIN_VALUE);
      if (down.compareAndSet(true, false)) {
        LOG.info("BookKeeper at {}:{} answers again", config.host(), config.port());
      }
      if (!idle.offer(connection)) {
        connection.close();
      }
      return result;
    } catch (TCacheException e) {
      if (!idle.offer(connection)) {
        connection.close();
      }
      throw new IOException("BookKeeper refused the request: " + e.getMessage(), e);
    } catch (TApplicationException e) {
      if (e.getType() != TApplicationException.UNKNOWN_METHOD) {
        throw failed(connection, e);
      }
      // an older daemon: the connection stays good (the server skipped the call's arguments), and no backoff
      if (!idle.offer(connection)) {
        connection.close();
      }
      throw new UnknownCallException("BookKeeper at " + config.host() + ":" + config.port() + " does not know this call: " + e.getMessage(), e);
    } catch (TException | RuntimeException e) {
      throw failed(connection, e);
    }
  }

  /** A transport failure (or a daemon error outside the protocol): closes {@code connection} and backs off. */
  private BookKeeperUnavailableException failed(Connection connection, Exception e) {
    if (connection != null) {
      connection.close();
    }
    long backoff = backoffNanos.getAndUpdate(b -> Math.min(config.backoffMax().toNanos(), b * 2));
    retryAtNanos.set(nanoClock.getAsLong() + backoff);
    failures.incrementAndGet();
    if (down.compareAndSet(false, true)) {
      LOG.warn("BookKeeper at {}:{} failed ({}); reads go to the source (or other nodes' caches) while it does not answer, retried after "
          + "{} ms, then backing off up to {}; further failures are logged at debug", config.host(), config.port(), e, backoff / 1_000_000,
          config.backoffMax());
    } else {
      LOG.debug("BookKeeper at {}:{} failed again ({}); retried after {} ms", config.host(), config.port(), e, backoff / 1_000_000);
    }
    return new BookKeeperUnavailableException("BookKeeper at " + config.host() + ":" + config.port() + " failed", e);
  }

  /**
   * Asks the BookKeeper described by {@code config} who it is over a one-off connection, whatever its
   * block size: tools use it to learn the block size to build a client with.
   */
  public static TServiceInfo probe(ClientConfig config) throws IOException {
    requireNonNull(config, "config is null");
    TFramedTransport transport = null;
    try {
      transport = open(config);
      return new BookKeeperService.Client(new TBinaryProtocol(transport)).info();
    } catch (TException e) {
      throw new BookKeeperUnavailableException("BookKeeper at " + config.host() + ":" + config.port() + " did not answer: " + e, e);
    } finally {
      if (transport != null) {
        transport.close();
      }
    }
  }

  /**
   * A framed transport to the daemon, after the {@link ConnectionAuth} handshake proved both ends hold
   * the secret in {@link ClientConfig#secretFile()}.
   */
  private static TFramedTransport open(ClientConfig config) throws TTransportException {
    if (config.secretFile() == null) {
      throw new TTransportException("No BookKeeper secret file: set rubix.cache.dirs (the secret is <first dir>/bookkeeper/secret) or "
          + BookKeeperKeys.SECRET_FILE.name());
    }
    byte[] secret;
    try {
      secret = BookKeeperSecret.read(config.secretFile());
    } catch (IOException e) {
      throw new TTransportException(e.getMessage(), e);
    }
    TConfiguration tconf = TConfiguration.custom().setMaxFrameSize(config.maxFrameSize()).setMaxMessageSize(config.maxFrameSize()).build();
    TSocket socket = new TSocket(tconf, config.host(), config.port(), (int) config.readTimeout().toMillis(), (int) config.connectTimeout().toMillis());
    socket.open();
    try {
      Socket raw = socket.getSocket();
      new ConnectionAuth(secret, RANDOM).authenticateServer(raw.getInputStream(), raw.getOutputStream());
      return new TFramedTransport(socket, config.maxFrameSize());
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw new TTransportException("Authenticating with the BookKeeper at " + config.host() + ":" + config.port() + " failed: " + e.getMessage(), e);
    }
  }

  private Connection connect() throws TException {
    TFramedTransport transport = open(config);
    BookKeeperService.Client client = new BookKeeperService.Client(new TBinaryProtocol(transport));
    TServiceInfo info;
    try {
      info = client.info();
    } catch (TException | RuntimeException e) {
      transport.close();
      throw e;
    }
    if (info.getBlockSize() != blockSize || info.getProtocolVersion() != ThriftCodec.PROTOCOL_VERSION) {
      transport.close();
      throw new TTransportException("BookKeeper uses block size " + info.getBlockSize() + " and protocol " + info.getProtocolVersion()
          + " but this JVM uses block size " + blockSize + " and protocol " + ThriftCodec.PROTOCOL_VERSION + " (rubix.cache.block.size must match)");
    }
    return new Connection(transport, client);
  }

  private record Connection(TFramedTransport transport, BookKeeperService.Client client) {
    void close() {
      transport.close();
    }
  }
}
