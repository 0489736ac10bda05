package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import io.rubix.bookkeeper.fetch.OwnerFetcher;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
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
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BookKeeper's data-transfer port ({@link TransferProtocol}): serves cached blocks of the version
 * a peer names, straight from the cache file with {@link FileChannel#transferTo}. With an
 * {@link OwnerFetcher}, blocks a request asks to be filled that are not cached are first fetched
 * from the source (bounded; see there), so a non-owner's read warms the owner. One request per
 * connection, handled by a small bounded pool; a connection beyond it is closed at once. A request
 * only reads blocks its version's metadata says are cached; a malformed one gets BAD_REQUEST, a
 * connection whose reads stall is closed after the timeout, and every connection is closed at the
 * latest after max(10s, 5 x timeout), so a peer that stops reading cannot hold a worker.
 *
 * <p>Without a secret the blocks go from the cache file to the socket with {@link FileChannel#transferTo}
 * (no copy through the heap). With a secret every answer to an authorized request ends with a
 * response MAC bound to that request ({@link TransferProtocol}): the blocks are then read from the
 * file into one heap buffer per connection, MACed and written from those very bytes, so the MAC
 * always covers exactly what was sent, even if the file changes meanwhile.
 *
 * <p>Threads: one acceptor, a bounded worker pool (one connection each, confined to its worker), one
 * watchdog that closes connections at their deadline. The server owns the listener, pool and watchdog
 * and closes them in {@link #close()}; it does not own the metadata service or the fetcher.
 */
public final class TransferServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TransferServer.class);
  /** The buffer blocks go through when they are MACed. */
  private static final int MAC_BUFFER_BYTES = 256 * 1024;

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
  private final AtomicLong bytesServed = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong badRequests = new AtomicLong();
  private final AtomicLong unauthorized = new AtomicLong();
  private volatile boolean closed;

  public TransferServer(CacheMetadataService service, String bindAddress, int port, String secret, Duration timeout, int threads) throws IOException {
    this(service, bindAddress, port, secret, timeout, threads, null);
  }

  /** A server that, with a {@code fetcher}, fills blocks a request with the fill flag asks for before serving them. */
  public TransferServer(CacheMetadataService service, String bindAddress, int port, String secret, Duration timeout, int threads,
      OwnerFetcher fetcher) throws IOException {
    this.service = requireNonNull(service, "service is null");
    this.fetcher = fetcher;
    this.secret = TransferProtocol.secret(secret);
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
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
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rubix-transfer-watchdog-" + listenPort);
      t.setDaemon(true);
      return t;
    });
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
      DataInputStream in = new DataInputStream(new BufferedInputStream(channel.socket().getInputStream(), 512));
      Received received;
      try {
        received = TransferProtocol.decode(in, secret);
      } catch (TransferProtocol.UnsupportedVersionException e) {
        LOG.debug("Block-transfer request from {} in another protocol version: {}", channel.getRemoteAddress(), e.getMessage());
        badRequests.incrementAndGet();
        respond(channel, Status.UNSUPPORTED_VERSION, null);
        return;
      } catch (TransferProtocol.ProtocolException | IllegalArgumentException e) {
        LOG.debug("Bad block-transfer request from {}: {}", channel.getRemoteAddress(), e.getMessage());
        badRequests.incrementAndGet();
        respond(channel, Status.BAD_REQUEST, null);
        return;
      }
      requests.incrementAndGet();
      if (!received.authorized()) {
        // counted, not logged at warn: a scanner must not flood the log
        LOG.debug("Block-transfer request from {} without a valid MAC refused", channel.getRemoteAddress());
        unauthorized.incrementAndGet();
        respond(channel, Status.UNAUTHORIZED, null);
        return;
      }
      send(channel, received.request(), received.responseMac(secret));
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

  /** Answers {@code request}; with {@code mac} (a response MAC bound to the request) every answer ends with it. */
  private void send(SocketChannel channel, Request request, Mac mac) throws IOException {
    ObjectVersion version = request.version();
    int first = request.firstBlock();
    int end = first + request.blockCount();
    if (request.blockSize() != service.blockSize()) {
      badRequests.incrementAndGet();
      respond(channel, Status.BAD_REQUEST, mac);
      return;
    }
    BlockRange status;
    try {
      status = service.status(version, first, end);
    } catch (IllegalArgumentException e) {
      badRequests.incrementAndGet();
      respond(channel, Status.BAD_REQUEST, mac);
      return;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Metadata lookup for a block transfer of {} failed", version.path(), e);
      respond(channel, Status.ERROR, mac);
      return;
    }
    int cached = leadingCached(status, first, end);
    if (cached < end - first && request.fill() && fetcher != null) {
      OwnerFetcher.Outcome outcome = fetcher.fill(version, first + cached, end);
      if (outcome == OwnerFetcher.Outcome.NOT_ALLOWED && cached == 0) {
        // a store this node's configuration does not name: nothing was opened or connected to
        LOG.debug("Peer asked to fill blocks [{}, {}) of {}, whose scheme or authority this node does not fetch", first, end, version.path());
        badRequests.incrementAndGet();
        respond(channel, Status.BAD_REQUEST, mac);
        return;
      }
      if (outcome == OwnerFetcher.Outcome.STALE && cached == 0) {
        respond(channel, Status.STALE, mac);
        return;
      }
      if (outcome == OwnerFetcher.Outcome.FILLED) {
        try {
          status = service.status(version, first, end);
        } catch (IOException | RuntimeException e) {
          LOG.warn("Metadata lookup for a block transfer of {} failed", version.path(), e);
          respond(channel, Status.ERROR, mac);
          return;
        }
        cached = leadingCached(status, first, end);
      }
    }
    if (cached == 0) {
      respond(channel, Status.NOT_CACHED, mac);
      return;
    }
    // the blocks cached from the first one on: the reader reads the others elsewhere
    end = first + cached;
    int blockSize = request.blockSize();
    int[] lengths = new int[end - first];
    int[] crcs = new int[end - first];
    for (int b = first; b < end; b++) {
      lengths[b - first] = version.blockLength(b, blockSize);
      crcs[b - first] = status.crc32c(b);
    }
    FileChannel file;
    try {
      file = FileChannel.open(Path.of(status.dataFile()), StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      // evicted since the status was read
      respond(channel, Status.NOT_CACHED, mac);
      return;
    }
    try (file) {
      long start = (long) first * blockSize;
      long length = 0;
      for (int l : lengths) {
        length += l;
      }
      if (file.size() < start + length) {
        respond(channel, Status.NOT_CACHED, mac);
        return;
      }
      byte[] header = TransferProtocol.encodeResponse(Status.OK, lengths, crcs);
      write(channel, ByteBuffer.wrap(header));
      String what = "blocks [" + first + ", " + end + ") of " + version.path() + " from cache file " + status.dataFile();
      if (mac == null) {
        transfer(file, start, length, channel, what);
      } else {
        mac.update(header);
        transferMacing(file, start, length, channel, mac, what);
      }
      write(channel, ByteBuffer.wrap(TransferProtocol.trailer(mac)));
      bytesServed.addAndGet(length);
    }
  }

  /** Sends {@code [start, start + length)} of {@code file} without copying it through the heap. */
  private static void transfer(FileChannel file, long start, long length, SocketChannel channel, String what) throws IOException {
    long sent = 0;
    while (sent < length) {
      long n = file.transferTo(start + sent, length - sent, channel);
      if (n <= 0) {
        // the file shrank under us: close the connection, the peer reads the source
        throw new EOFException("Cache file ended after " + sent + " of " + length + " bytes while sending " + what);
      }
      sent += n;
    }
  }

  /** Sends {@code [start, start + length)} of {@code file} through one buffer, adding exactly the bytes sent to {@code mac}. */
  private static void transferMacing(FileChannel file, long start, long length, SocketChannel channel, Mac mac, String what) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(length, MAC_BUFFER_BYTES));
    long sent = 0;
    while (sent < length) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), length - sent));
      int n = file.read(buffer, start + sent);
      if (n <= 0) {
        throw new EOFException("Cache file ended after " + sent + " of " + length + " bytes while sending " + what);
      }
      buffer.flip();
      mac.update(buffer.array(), 0, n);
      write(channel, buffer);
      sent += n;
    }
  }

  private static int leadingCached(BlockRange status, int first, int end) {
    int b = first;
    while (b < end && status.state(b) == BlockState.CACHED) {
      b++;
    }
    return b - first;
  }

  /** Answers with {@code status} alone, ending with the response MAC when {@code mac} is not null. */
  private static void respond(SocketChannel channel, Status status, Mac mac) throws IOException {
    byte[] header = TransferProtocol.encodeResponse(status, null, null);
    if (mac != null) {
      mac.update(header);
    }
    write(channel, ByteBuffer.wrap(header));
    write(channel, ByteBuffer.wrap(TransferProtocol.trailer(mac)));
  }

  private static void write(SocketChannel channel, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      channel.write(bytes);
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
