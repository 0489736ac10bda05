package io.rubix.core.client;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TCacheException;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import java.io.IOException;
import java.net.Socket;
import java.security.SecureRandom;
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
 * The connections of one {@link BookKeeperClient} to its daemon: a bounded pool of framed connections,
 * each used by one call at a time, every one opened with the {@link ConnectionAuth} handshake and
 * checked to speak this JVM's block size and protocol. A transport failure closes that connection and
 * starts a backoff (doubling up to {@code backoffMax}) during which calls fail at once with
 * {@link BookKeeperUnavailableException}, so readers go to the source instead of queueing behind a dead
 * daemon; the first call after the backoff tries again.
 */
final class DaemonConnections implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DaemonConnections.class);
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
  private volatile boolean closed;

  DaemonConnections(ClientConfig config, int blockSize, LongSupplier nanoClock) {
    this.config = requireNonNull(config, "config is null");
    this.blockSize = blockSize;
    this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    this.idle = new ArrayBlockingQueue<>(config.poolSize());
  }

  /** Transport failures seen so far. */
  long failures() {
    return failures.get();
  }

  @Override
  public void close() {
    closed = true;
    Connection connection;
    while ((connection = idle.poll()) != null) {
      connection.close();
    }
  }

  @FunctionalInterface
  interface Call<T> {
    T apply(BookKeeperService.Client client) throws TException;
  }

  /** Runs {@code call} on a pooled connection (a new one when none is idle); fails at once while backing off. */
  <T> T call(Call<T> call) throws IOException {
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
  static TServiceInfo probe(ClientConfig config) throws IOException {
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
