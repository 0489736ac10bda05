package io.rubix.bookkeeper.server;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.wire.ConnectionAuth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TNonblockingServerSocket;
import org.apache.thrift.transport.TNonblockingSocket;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A non-blocking server socket whose connections must send each frame within a deadline.
 *
 * <p>Design: Thrift's non-blocking servers reserve a frame's declared size from one read budget
 * shared by all connections as soon as the 4-byte length arrives, and hold it until the frame is
 * complete; there is no timeout. A few connections that declare large frames and never send them
 * (a stuck or hostile local process) thus hold the whole budget, and every other client's frames
 * wait forever. Each accepted connection here follows the frame boundaries of the bytes the server
 * reads; a watchdog shuts down the input of a connection that has been inside one frame for longer
 * than the deadline, so the server sees end of stream, closes it and gives its reservation back.
 * Connections idle between frames (pooled clients) are left alone.
 *
 * <p>Before any frame, each connection must pass the {@link ConnectionAuth} handshake: the server
 * writes its challenge when it accepts the connection, takes the client's response off the channel
 * before Thrift sees a byte, and answers with its own proof or closes the connection (counted). The
 * handshake counts as a frame for the deadline, so a silent connection is closed like a stuck frame.
 *
 * <p>Since it parses the frames anyway, each connection also reads the method name of a
 * {@code TBinaryProtocol} call from the first bytes of its frame; {@link #takeCompletedCall()} tells
 * the selector thread which call the frame it has just finished reading holds, so the server can run
 * cheap calls on that thread (see {@link InlineCallServer}).
 */
public final class FrameDeadlineServerSocket extends TNonblockingServerSocket {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDeadlineServerSocket.class);

  private final long deadlineNanos;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService watchdog;
  /** Per selector thread: the method name of the frame that thread completed last, until taken. */
  private final ThreadLocal<String> completedCall = new ThreadLocal<>();

  private final ConnectionAuth auth;
  private final ServerCounters counters;

  public FrameDeadlineServerSocket(InetSocketAddress address, int maxFrameSize, Duration frameDeadline, ConnectionAuth auth,
      ServerCounters counters) throws TTransportException {
    super(address, 0, maxFrameSize);
    this.auth = requireNonNull(auth, "auth is null");
    this.counters = requireNonNull(counters, "counters is null");
    this.deadlineNanos = frameDeadline.toNanos();
    this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "rubix-bookkeeper-frame-watchdog");
      thread.setDaemon(true);
      return thread;
    });
    long period = Math.max(1, frameDeadline.toMillis() / 4);
    watchdog.scheduleWithFixedDelay(this::shutDownLateFrames, period, period, TimeUnit.MILLISECONDS);
  }

  @Override
  public TNonblockingSocket accept() throws TTransportException {
    TNonblockingSocket accepted = super.accept();
    if (accepted == null) {
      return null;
    }
    try {
      Connection connection = new Connection(accepted.getSocketChannel(), auth.serverExchange());
      connection.setMaxFrameSize(accepted.getMaxFrameSize());
      if (!connection.sendChallenge()) {
        accepted.close();
        return null;
      }
      connections.add(connection);
      return connection;
    } catch (IOException e) {
      accepted.close();
      throw new TTransportException(e);
    }
  }

  /**
   * The method name of the call in the frame the calling thread has just finished reading from one of
   * this socket's connections, or null (no frame completed since the last take, or not a strict
   * {@code TBinaryProtocol} call message); clears it. Only meaningful on the selector thread that read
   * the frame: Thrift's selector threads complete a frame and hand it to the server within one read.
   */
  public String takeCompletedCall() {
    String call = completedCall.get();
    if (call != null) {
      completedCall.remove();
    }
    return call;
  }

  private void shutDownLateFrames() {
    long now = System.nanoTime();
    for (Connection connection : connections) {
      long started = connection.frameStartedNanos;
      if (started != Connection.IDLE && now - started > deadlineNanos && !connection.shutDown) {
        connection.shutDown = true;
        LOG.warn("Closing BookKeeper connection {}: a frame started {} ms ago is still incomplete", connection,
            TimeUnit.NANOSECONDS.toMillis(now - started));
        try {
          connection.getSocketChannel().shutdownInput();
        } catch (IOException e) {
          LOG.debug("Shutting down the input of {} failed", connection, e);
        }
      }
    }
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    super.close();
  }

  /** A server-side connection that follows frame boundaries: a 4-byte big-endian length, then that many bytes. */
  private final class Connection extends TNonblockingSocket {
    static final long IDLE = Long.MIN_VALUE;
    /** Longest method name recorded; longer names are not recognized. */
    static final int MAX_NAME = 32;
    /** A strict TBinaryProtocol call message starts with version 1 and type CALL (1). */
    static final int STRICT_CALL = 0x80010001;
    /** When the frame being read (or the handshake) started, or {@link #IDLE} between frames. */
    volatile long frameStartedNanos = System.nanoTime();
    volatile boolean shutDown;
    /** This connection's handshake; null once the client proved it holds the secret. */
    private ConnectionAuth.Exchange handshake;
    private final ByteBuffer response = ByteBuffer.allocate(ConnectionAuth.RESPONSE_BYTES);
    // only the selector thread that owns this connection reads, so the parsing state needs no lock
    private int headerBytes;
    private int header;
    private long bodyRemaining;
    /** The first bytes of the current frame's body: message version and type, name length, name. */
    private final byte[] head = new byte[8 + MAX_NAME];
    private int headBytes;

    Connection(SocketChannel channel, ConnectionAuth.Exchange handshake) throws IOException, TTransportException {
      super(channel);
      this.handshake = handshake;
    }

    /** Writes the challenge; false when the fresh socket does not take these few bytes at once. */
    boolean sendChallenge() throws IOException {
      ByteBuffer challenge = handshake.challenge();
      getSocketChannel().write(challenge);
      return !challenge.hasRemaining();
    }

    /**
     * Reads the client's handshake response off the channel, then answers it: -1 when the client
     * failed (Thrift closes the connection), 0 while it is incomplete or just completed.
     */
    private int authenticate() throws TTransportException {
      try {
        if (getSocketChannel().read(response) < 0) {
          return -1;
        }
        if (response.hasRemaining()) {
          return 0;
        }
        ByteBuffer proof = handshake.accept(response.flip());
        if (proof == null) {
          counters.unauthenticated.increment();
          LOG.warn("Closing BookKeeper connection {}: the client does not hold the BookKeeper secret", getSocketChannel().getRemoteAddress());
          return -1;
        }
        getSocketChannel().write(proof);
        if (proof.hasRemaining()) {
          return -1;
        }
        handshake = null;
        frameStartedNanos = IDLE;
        return 0;
      } catch (IOException e) {
        throw new TTransportException(e);
      }
    }

    @Override
    public int read(ByteBuffer buffer) throws TTransportException {
      if (handshake != null && authenticate() != 0) {
        return -1;
      }
      if (handshake != null) {
        return 0;
      }
      int start = buffer.position();
      int n = super.read(buffer);
      for (int i = 0; i < n; ) {
        if (headerBytes < 4) {
          if (headerBytes == 0) {
            frameStartedNanos = System.nanoTime();
          }
          header = (header << 8) | (buffer.get(start + i) & 0xff);
          i++;
          if (++headerBytes == 4) {
            bodyRemaining = header;
          }
        } else {
          int taken = (int) Math.min(bodyRemaining, n - i);
          int kept = Math.min(taken, head.length - headBytes);
          buffer.get(start + i, head, headBytes, kept);
          headBytes += kept;
          bodyRemaining -= taken;
          i += taken;
        }
        if (headerBytes == 4 && bodyRemaining <= 0) {
          completedCall.set(callName());
          headerBytes = 0;
          header = 0;
          headBytes = 0;
          frameStartedNanos = IDLE;
        }
      }
      return n;
    }

    private String callName() {
      if (headBytes < 8 || intAt(0) != STRICT_CALL) {
        return null;
      }
      int length = intAt(4);
      if (length <= 0 || length > MAX_NAME || headBytes < 8 + length) {
        return null;
      }
      return new String(head, 8, length, StandardCharsets.UTF_8);
    }

    private int intAt(int at) {
      return ((head[at] & 0xff) << 24) | ((head[at + 1] & 0xff) << 16) | ((head[at + 2] & 0xff) << 8) | (head[at + 3] & 0xff);
    }

    @Override
    public void close() {
      connections.remove(this);
      super.close();
    }
  }
}
