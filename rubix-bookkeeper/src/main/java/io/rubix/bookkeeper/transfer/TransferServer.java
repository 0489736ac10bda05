package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import io.rubix.bookkeeper.fetch.OwnerFetcher;
import io.rubix.bookkeeper.fetch.OwnerFetcher.Outcome;
import io.rubix.core.peer.PeerConfig;
import io.rubix.core.peer.TransferTls;
import io.rubix.core.read.fetch.ArrivingBlock;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.wire.AnswerEncoder;
import io.rubix.spi.wire.TransferProtocol;
import io.rubix.spi.wire.TransferProtocol.Received;
import io.rubix.spi.wire.TransferProtocol.Request;
import io.rubix.spi.wire.TransferProtocol.Status;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BookKeeper's data-transfer port ({@link TransferProtocol}): serves cached blocks of the version
 * a peer names, straight from the cache file ({@link AnswerWriter}). With an {@link OwnerFetcher},
 * blocks a request asks to be filled that are not cached are fetched from the source (bounded; see
 * there) and sent as their bytes arrive, while the fetch writes and commits them, so a non-owner's
 * read warms the owner and waits for neither the write nor the commit. One request per
 * connection, handled by a small bounded pool; a connection beyond it is closed at once. A request
 * only reads blocks its version's metadata says are cached; a malformed one gets BAD_REQUEST, a
 * connection whose reads stall is closed after the timeout, and every connection is closed at the
 * latest after max(10s, 5 x timeout), so a peer that stops reading cannot hold a worker.
 *
 * <p>Without a secret cached blocks go from the cache file to the socket with {@link FileChannel#transferTo}
 * (no copy through the heap). With a secret every block and every answer to an authorized request
 * ends with a response MAC bound to that request ({@link TransferProtocol}): the bytes are MACed as they
 * are written, so the MAC always covers exactly what was sent, even if the file changes meanwhile.
 * Blocks being fetched are sent from the fetch's buffer; their CRC32C is computed over the bytes sent.
 *
 * <p>With TLS on ({@code rubix.network.transfer.tls.enabled}) a worker first completes a TLS handshake
 * within the timeout, or closes the connection ({@link TlsHandshakes}): a plaintext client, garbage, a
 * certificate the trust store does not vouch for, or a handshake too slow cost one worker at most the
 * timeout and are counted ({@link #refusedHandshakes()}). The answer is then written through TLS, from
 * a heap buffer (no {@code transferTo}); the protocol inside, secret and MACs included, is unchanged.
 *
 * <p>Threads: one acceptor, a bounded worker pool (one connection each, confined to its worker), one
 * watchdog that closes connections at their deadline. The server owns the listener, pool and watchdog
 * and closes them in {@link #close()}; it does not own the metadata service or the fetcher.
 */
public final class TransferServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TransferServer.class);

  private final CacheMetadataService service;
  /** Fills blocks peers ask for and this node lacks, or null when this node only serves what it has. */
  private final OwnerFetcher fetcher;
  private final byte[] secret;
  private final int timeoutMillis;
  private final ServerSocketChannel listener;
  private final ThreadPoolExecutor workers;
  private final Thread acceptor;
  private final ScheduledExecutorService watchdog;
  private final long connectionDeadlineMillis;
  /** How long a block being fetched may send no new byte before the answer ends there. */
  private final long fetchWaitNanos;
  /** Turns an accepted connection into the streams a request is read from and its answer written to. */
  private final Connection.Opener connections;
  private final AtomicLong bytesServed = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong badRequests = new AtomicLong();
  private final AtomicLong unauthorized = new AtomicLong();
  private final AtomicLong refusedHandshakes = new AtomicLong();
  private volatile boolean closed;

  /**
   * A server on {@code bindAddress} and {@code config}'s port (0: any free one) with its secret, timeout, threads and TLS
   * settings that, with a {@code fetcher}, fills blocks a request with the fill flag asks for before serving them
   * (null: it serves only what this node has cached). Stores TLS needs that cannot be read fail with an
   * {@link io.rubix.core.config.InvalidConfigException} naming their key.
   */
  public TransferServer(CacheMetadataService service, String bindAddress, PeerConfig config, OwnerFetcher fetcher) throws IOException {
    this.service = requireNonNull(service, "service is null");
    this.fetcher = fetcher;
    this.secret = TransferProtocol.secret(config.secret());
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.timeout().toMillis()));
    // before the port is bound: stores that cannot be read fail the start
    Optional<TransferTls> tls = config.tls().enabled() ? Optional.of(TransferTls.owner(config.tls())) : Optional.empty();
    int port = config.port();
    int threads = config.serverThreads();
    this.listener = ServerSocketChannel.open();
    try {
      listener.bind(new InetSocketAddress(bindAddress, port), 64);
    } catch (IOException e) {
      listener.close();
      throw new IOException("Cannot listen for block transfers on " + bindAddress + ":" + port, e);
    }
    AtomicInteger ids = new AtomicInteger();
    int listenPort = port();
    this.workers = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, "rubix-transfer-" + listenPort + "-" + ids.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    workers.allowCoreThreadTimeOut(true);
    this.connectionDeadlineMillis = Math.max(10_000L, 5L * timeoutMillis) + (fetcher == null ? 0 : fetcher.timeout().toMillis());
    this.fetchWaitNanos = fetcher == null ? 0 : fetcher.timeout().toNanos();
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rubix-transfer-watchdog-" + listenPort);
      t.setDaemon(true);
      return t;
    });
    this.connections = tls.<Connection.Opener>map(t -> new TlsHandshakes(t, watchdog, timeoutMillis, refusedHandshakes)).orElse(Connection::plaintext);
    this.acceptor = new Thread(this::accept, "rubix-transfer-accept-" + listenPort);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return listener.socket().getLocalPort();
  }

  /** Bytes of blocks sent to peers. */
  public long bytesServed() {
    return bytesServed.get();
  }

  public long requests() {
    return requests.get();
  }

  /** Connections closed at once because every worker was busy. */
  public long refused() {
    return refused.get();
  }

  /** Requests answered BAD_REQUEST (malformed, out of bounds, wrong block size, a fill from a store this node does not fetch). */
  public long badRequests() {
    return badRequests.get();
  }

  /** Requests refused for a missing or wrong MAC. */
  public long unauthorized() {
    return unauthorized.get();
  }

  /** Connections closed because their TLS handshake failed or did not end within the timeout (with TLS on). */
  public long refusedHandshakes() {
    return refusedHandshakes.get();
  }

  private void accept() {
    while (!closed) {
      SocketChannel channel;
      try {
        channel = listener.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("Accepting a block-transfer connection failed", e);
          try {
            Thread.sleep(10);
          } catch (InterruptedException interrupted) {
            return;
          }
        }
        continue;
      }
      try {
        workers.execute(() -> serve(channel));
      } catch (RejectedExecutionException e) {
        refused.incrementAndGet();
        closeQuietly(channel);
      }
    }
  }

  private void serve(SocketChannel channel) {
    // blocking writes have no timeout: a peer that stops reading (or trickles its request) loses its connection at the deadline
    ScheduledFuture<?> deadline = watchdog.schedule(() -> closeQuietly(channel), connectionDeadlineMillis, TimeUnit.MILLISECONDS);
    try (channel) {
      channel.socket().setSoTimeout(timeoutMillis);
      channel.socket().setTcpNoDelay(true);
      Connection connection = connections.open(channel);
      try {
        serve(channel, connection);
      } finally {
        // with TLS: close_notify, then the channel
        closeQuietly(connection.socket());
      }
    } catch (EOFException | SocketTimeoutException e) {
      LOG.debug("Block-transfer connection ended early or stalled: {}", e.toString());
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        LOG.debug("Block-transfer connection failed", e);
      }
    } finally {
      deadline.cancel(false);
    }
  }

  /** Reads the request on {@code connection} (accepted as {@code channel}) and answers it. */
  private void serve(SocketChannel channel, Connection connection) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(connection.in(), 512));
    Received received;
    try {
      received = TransferProtocol.decode(in, secret);
    } catch (TransferProtocol.UnsupportedVersionException e) {
      LOG.debug("Block-transfer request from {} in another protocol version: {}", channel.getRemoteAddress(), e.getMessage());
      badRequests.incrementAndGet();
      respond(connection.out(), new AnswerEncoder(null), Status.UNSUPPORTED_VERSION);
      return;
    } catch (TransferProtocol.ProtocolException | IllegalArgumentException e) {
      LOG.debug("Bad block-transfer request from {}: {}", channel.getRemoteAddress(), e.getMessage());
      badRequests.incrementAndGet();
      respond(connection.out(), new AnswerEncoder(null), Status.BAD_REQUEST);
      return;
    }
    requests.incrementAndGet();
    if (!received.authorized()) {
      // counted, not logged at warn: a scanner must not flood the log
      LOG.debug("Block-transfer request from {} without a valid MAC refused", channel.getRemoteAddress());
      unauthorized.incrementAndGet();
      respond(connection.out(), new AnswerEncoder(null), Status.UNAUTHORIZED);
      return;
    }
    send(connection, received.request(), new AnswerEncoder(received.responseMac(secret)));
  }

  /**
   * Answers {@code request} through {@code encoder} (which MACs every answer when the request was
   * authenticated): looks the blocks up, starts fetching what is missing when the request asks for a
   * fill, streams blocks while each is cached or arriving, and says why when not one could be sent.
   */
  private void send(Connection connection, Request request, AnswerEncoder encoder) throws IOException {
    WritableByteChannel channel = connection.out();
    BlockRange status = lookUp(request, channel, encoder);
    if (status == null) {
      return;
    }
    ObjectVersion version = request.version();
    int first = request.firstBlock();
    int end = first + request.blockCount();
    int fillFrom = first + leadingCached(status, first, end);
    // the blocks this node fetches for the request can be sent as they arrive from now on
    OwnerFetcher.Fill fill = fillFrom < end && request.fill() && fetcher != null ? fetcher.start(version, fillFrom, end) : null;
    String what = "blocks [" + first + ", " + end + ") of " + version.path();
    AnswerWriter answer = new AnswerWriter(channel, connection.zeroCopy(), encoder, what);
    Outcome outcome = streamBlocks(request, status, fill, fillFrom, answer);
    if (answer.started()) {
      // counted before the end marker goes out: a reader that has the whole answer sees the count
      bytesServed.addAndGet(answer.blockBytes());
      answer.end();
      return;
    }
    if (fill != null && outcome == null) {
      outcome = fetcher.await(fill, fillFrom);
    }
    respondWhyNot(channel, encoder, outcome, what);
  }

  /** The state of the requested blocks, or null once a bad request or a failed lookup is answered. */
  private BlockRange lookUp(Request request, WritableByteChannel channel, AnswerEncoder encoder) throws IOException {
    ObjectVersion version = request.version();
    if (request.blockSize() != service.blockSize()) {
      badRequests.incrementAndGet();
      respond(channel, encoder, Status.BAD_REQUEST);
      return null;
    }
    try {
      return service.status(version, request.firstBlock(), request.firstBlock() + request.blockCount());
    } catch (IllegalArgumentException e) {
      badRequests.incrementAndGet();
      respond(channel, encoder, Status.BAD_REQUEST);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Metadata lookup for a block transfer of {} failed", version.path(), e);
      respond(channel, encoder, Status.ERROR);
    }
    return null;
  }

  /**
   * Sends the requested blocks in order while each is cached or arriving from {@code fill}; once one is
   * neither, waits for the fill to end (once) and looks again. The fill's outcome when it was awaited,
   * else null.
   */
  private Outcome streamBlocks(Request request, BlockRange initial, OwnerFetcher.Fill fill, int fillFrom, AnswerWriter answer)
      throws IOException {
    ObjectVersion version = request.version();
    int first = request.firstBlock();
    int end = first + request.blockCount();
    BlockRange status = initial;
    FileChannel file = null;
    Outcome outcome = null;
    try {
      int b = first;
      while (b < end) {
        int length = version.blockLength(b, request.blockSize());
        if (status.state(b) == BlockState.CACHED) {
          if (file == null) {
            file = open(status.dataFile());
          }
          if (file == null || !answer.sendCached(file, (long) b * request.blockSize(), length, status.crc32c(b))) {
            // evicted since the status was read
            break;
          }
          b++;
          continue;
        }
        if (fill == null || b >= fill.end()) {
          break;
        }
        ArrivingBlock arriving = fetcher.arriving(fill, version, b);
        if (arriving != null) {
          if (!answer.sendArriving(arriving, fetchWaitNanos)) {
            break;
          }
          b++;
          continue;
        }
        // neither cached nor arriving in this node: another process fetches it, or the fill has ended; once the fill ends it may be cached
        if (outcome != null) {
          break;
        }
        outcome = fetcher.await(fill, fillFrom);
        if (outcome != Outcome.FILLED) {
          break;
        }
        try {
          status = service.status(version, first, end);
        } catch (IOException | RuntimeException e) {
          LOG.warn("Metadata lookup for a block transfer of {} failed", version.path(), e);
          break;
        }
        closeQuietly(file);
        file = null;
      }
      return outcome;
    } finally {
      closeQuietly(file);
    }
  }

  /** Answers a request of which not one block could be sent, saying why by the fill's {@code outcome} (null: no fill). */
  private void respondWhyNot(WritableByteChannel channel, AnswerEncoder encoder, Outcome outcome, String what) throws IOException {
    if (outcome == Outcome.NOT_ALLOWED) {
      // a store this node's configuration does not name: nothing was opened or connected to
      LOG.debug("Peer asked to fill {}, whose scheme or authority this node does not fetch", what);
      badRequests.incrementAndGet();
      respond(channel, encoder, Status.BAD_REQUEST);
    } else {
      respond(channel, encoder, outcome == Outcome.STALE ? Status.STALE : Status.NOT_CACHED);
    }
  }

  /** The cache file {@code dataFile}, or null when it is gone (evicted since the status was read). */
  private static FileChannel open(String dataFile) throws IOException {
    try {
      return FileChannel.open(Path.of(dataFile), StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static int leadingCached(BlockRange status, int first, int end) {
    int b = first;
    while (b < end && status.state(b) == BlockState.CACHED) {
      b++;
    }
    return b - first;
  }

  /** Answers with {@code status} alone (and its tag). */
  private static void respond(WritableByteChannel channel, AnswerEncoder encoder, Status status) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(encoder.status(status));
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }

  private static void closeQuietly(Closeable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      LOG.debug("Closing the block-transfer listener failed", e);
    }
    workers.shutdownNow();
    watchdog.shutdownNow();
    try {
      acceptor.join(TimeUnit.SECONDS.toMillis(5));
      workers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
