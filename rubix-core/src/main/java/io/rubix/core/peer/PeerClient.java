package io.rubix.core.peer;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.wire.AnswerDecoder;
import io.rubix.spi.wire.TransferProtocol;
import io.rubix.spi.wire.TransferProtocol.Status;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import static java.util.Objects.requireNonNull;

/**
 * Reads blocks of splits other nodes own from those nodes' data-transfer ports
 * ({@link TransferProtocol}): one connection per request of at most {@link TransferProtocol#MAX_BLOCKS}
 * blocks, every block checked against the CRC32C the owner recorded for it. With peer fetches on, it
 * asks the owner to fetch blocks it lacks from the source first and waits up to
 * {@code rubix.network.transfer.fetch.timeout} longer for its answer. A peer that fails is reported
 * down to the cluster's {@link io.rubix.core.cluster.NodeLiveness}, which takes it out of the ring
 * until it answers again, and when it sent no block its runner-up, the blocks' owner now, is asked
 * once in its place (so that it caches them); a peer that answers NOT_CACHED, STALE or BAD_REQUEST (it does not fetch from
 * that store, or the configurations disagree: asking again would not help, but the peer is up) is not.
 *
 * <p>An owner sends blocks as it has them (from its cache, or from the source while it fetches them),
 * each followed by its CRC32C: a block is held in memory until it is complete and verified, then handed
 * on at once, before the rest of the answer. With a transfer secret every block and every OK, NOT_CACHED,
 * STALE and BAD_REQUEST answer must also carry a valid response MAC bound to the request. An answer that
 * fails verification (MAC or CRC32C) is a failure of the peer, counted by {@link #badResponses()} and
 * logged at warn; the blocks verified before it stay served, the others are read from the source.
 *
 * <p>With {@code rubix.network.transfer.tls.enabled} every connection is TLS ({@link TransferTls}): the
 * owner's certificate must chain to the trust store and name the host connected to. A TLS failure
 * (no common protocol, an untrusted or wrong-host certificate, a plaintext owner, an owner that wants
 * a certificate this reader lacks) is a failure of the peer like any other, its reason given to
 * {@link io.rubix.core.cluster.NodeLiveness}, which logs it once as the node goes down.
 *
 * <p>Thread-safe: each {@link #fetch} uses its own connection; the shared state is the counter and
 * the TLS sessions the JDK keeps for resumption.
 */
public final class PeerClient implements PeerReader {
  private static final Logger LOG = LoggerFactory.getLogger(PeerClient.class);

  private final PeerConfig config;
  private final ClusterLocality locality;
  private final byte[] secret;
  private final int timeoutMillis;
  private final boolean fill;
  private final int statusWaitMillis;
  private final long readAheadBytes;
  private final AtomicLong badResponses = new AtomicLong();
  private final Handshake handshake;
  private final boolean handOffWindow;
  private final long handOffUntilNanos;

  public PeerClient(PeerConfig config, ClusterLocality locality) {
    this(config, new PeerFetchConfig(false, 1, Duration.ZERO, 1, Set.of(), 0), locality);
  }

  /** A client that asks owners to fetch blocks they lack from the source when {@code fetch} enables it. */
  public PeerClient(PeerConfig config, PeerFetchConfig fetch, ClusterLocality locality) {
    this(config, fetch, locality, Duration.ZERO);
  }

  /**
   * {@link #PeerClient(PeerConfig, PeerFetchConfig, ClusterLocality)} that, for {@code handOffWindow}
   * from now, takes blocks this node owns and has not cached from their previous owner ({@link #handOff}).
   */
  public PeerClient(PeerConfig config, PeerFetchConfig fetch, ClusterLocality locality, Duration handOffWindow) {
    this.handOffUntilNanos = System.nanoTime() + handOffWindow.toNanos();
    this.handOffWindow = !handOffWindow.isZero();
    this.config = requireNonNull(config, "config is null");
    this.fill = fetch.enabled();
    this.readAheadBytes = fetch.readAheadMax();
    this.statusWaitMillis = fill ? (int) Math.min(Integer.MAX_VALUE / 2, fetch.timeout().toMillis()) : 0;
    this.locality = requireNonNull(locality, "locality is null");
    this.secret = TransferProtocol.secret(config.secret());
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE / 2, config.timeout().toMillis()));
    if (config.port() <= 0) {
      throw new IllegalArgumentException("Peer reads need a fixed transfer port, not " + config.port());
    }
    this.handshake = config.tls().enabled() ? TransferTls.reader(config.tls())::client : (socket, host, port) -> socket;
  }

  @Override
  public Transfer fetch(ObjectVersion version, int blockSize, int first, int end, Consumer<PeerBlock> received) {
    ClusterNode owner = peerOf(version.path(), (long) first * blockSize);
    Transfer transfer = fetchFrom(owner, version, blockSize, first, end, received);
    if (owner != null && transfer.served().isEmpty() && locality.liveness().isDown(owner.id())) {
      // the owner failed and left the ring: its runner-up owns the blocks now. Asking it (once) makes it fetch
      // and cache them, so they cross from the source once, not for this read and again for the runner-up
      ClusterNode runnerUp = peerOf(version.path(), (long) first * blockSize);
      if (runnerUp != null && !runnerUp.equals(owner)) {
        LOG.debug("Asking {} for blocks [{}, {}) of {} in place of {}, which is down", runnerUp.id(), first, end, version.path(), owner.id());
        return fetchFrom(runnerUp, version, blockSize, first, end, received);
      }
    }
    return transfer;
  }

  @Override
  public boolean handsOff() {
    return handOffWindow && System.nanoTime() - handOffUntilNanos < 0;
  }

  @Override
  public Transfer handOff(ObjectVersion version, int blockSize, int first, int end) {
    Optional<ClusterNode> previous = handsOff() ? locality.previousOwner(version.path(), (long) first * blockSize) : Optional.empty();
    long blocksPerSplit = Math.max(1, locality.splitSize() / blockSize);
    int splitEnd = (int) Math.min(end, Math.min((first / blocksPerSplit + 1) * blocksPerSplit, (long) first + TransferProtocol.MAX_BLOCKS));
    if (previous.isEmpty()) {
      return new Transfer(List.of(), splitEnd, false);
    }
    List<PeerBlock> blocks = new ArrayList<>();
    try {
      fetch(previous.get(), version, blockSize, first, splitEnd, false, blocks::add);
      return new Transfer(blocks, splitEnd, blocks.size() < splitEnd - first);
    } catch (IOException | RuntimeException e) {
      // not cached there (the common case), or the node failed: the caller reads the source
      LOG.debug("Blocks [{}, {}) of {} not handed off by {}: {}", first, splitEnd, version.path(), previous.get().id(), e.toString());
      return new Transfer(blocks, splitEnd, true);
    }
  }

  /** Fetches a leading run of blocks {@code [first, end)} of {@code version} from {@code owner} (null: this node or none). */
  private Transfer fetchFrom(ClusterNode owner, ObjectVersion version, int blockSize, int first, int end, Consumer<PeerBlock> received) {
    int groupEnd = first + 1;
    while (groupEnd < end && groupEnd - first < TransferProtocol.MAX_BLOCKS
        && Objects.equals(owner, peerOf(version.path(), (long) groupEnd * blockSize))) {
      groupEnd++;
    }
    if (owner == null) {
      return new Transfer(List.of(), groupEnd, false);
    }
    List<PeerBlock> blocks = new ArrayList<>();
    try {
      fetch(owner, version, blockSize, first, groupEnd, fill, block -> {
        blocks.add(block);
        received.accept(block);
      });
      return new Transfer(blocks, groupEnd, blocks.size() < groupEnd - first);
    } catch (TransferProtocol.BadResponseException e) {
      badResponses.incrementAndGet();
      LOG.warn("Rejected the answer of peer {} ({}:{}) for blocks [{}, {}) of {} after {} verified blocks: {}", owner.id(), owner.host(),
          config.port(), first, groupEnd, version.path(), blocks.size(), e.getMessage());
      locality.liveness().markDown(owner, "peer read from port " + config.port() + " failed verification: " + e.getMessage());
      return new Transfer(blocks, groupEnd, true);
    } catch (SSLException e) {
      LOG.debug("TLS with peer {} ({}:{}) failed for blocks [{}, {}) of {}", owner.id(), owner.host(), config.port(), first, groupEnd, version.path(), e);
      locality.liveness().markDown(owner, "TLS with port " + config.port() + " failed (" + e.getMessage()
          + "); check rubix.network.transfer.tls.* on both nodes");
      return new Transfer(blocks, groupEnd, true);
    } catch (NotServedException e) {
      LOG.debug("Blocks [{}, {}) of {} not served by {}: {}", first, groupEnd, version.path(), owner.id(), e.status);
      return new Transfer(blocks, groupEnd, true);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Peer read of blocks [{}, {}) of {} from {}:{} failed after {} blocks: {}", first, groupEnd, version.path(), owner.host(),
          config.port(), blocks.size(), e.toString());
      locality.liveness().markDown(owner, "peer read from port " + config.port() + (config.tls().enabled() ? " over TLS" : "") + " failed: " + e);
      return new Transfer(blocks, groupEnd, true);
    }
  }

  /** Answers of peers rejected for a missing or wrong MAC or a CRC32C mismatch. */
  public long badResponses() {
    return badResponses.get();
  }

  @Override
  public long maxFetchMillis() {
    // connect, the owner's answer (it may fetch first), the bytes
    return 2L * timeoutMillis + statusWaitMillis;
  }

  @Override
  public long readAheadBytes() {
    return readAheadBytes;
  }

  /** The owner (among the live nodes) of the split holding {@code offset}, or null when it is this node or unknown. */
  private ClusterNode peerOf(String path, long offset) {
    Optional<ClusterNode> owner = locality.ownerOf(path, offset);
    if (owner.isEmpty() || owner.equals(locality.view().local())) {
      return null;
    }
    return owner.get();
  }

  /**
   * Fetches a leading run of blocks {@code [first, end)} from {@code owner}, handing each block to
   * {@code received} once it is verified; a block the answer begins and does not end is dropped.
   * {@code fill}: the owner may fetch the blocks it lacks from the source first.
   */
  private void fetch(ClusterNode owner, ObjectVersion version, int blockSize, int first, int end, boolean fill, Consumer<PeerBlock> received)
      throws IOException {
    byte[] request = TransferProtocol.encode(new TransferProtocol.Request(version, blockSize, first, end - first, fill), secret);
    Mac mac = secret == null ? null : TransferProtocol.responseMac(secret, TransferProtocol.requestMac(request));
    String what = "the answer of peer " + owner.id() + " for blocks [" + first + ", " + end + ") of " + version.path();
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(owner.host(), config.port()), timeoutMillis);
      // the owner may fetch the blocks from the source before it answers, and sends them as they arrive
      plain.setSoTimeout(timeoutMillis + statusWaitMillis);
      plain.setTcpNoDelay(true);
      try (Socket socket = handshake.secure(plain, owner.host(), config.port())) {
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
        AnswerDecoder answer = new AnswerDecoder(new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024)), mac, what);
        Status status = answer.status();
        if (status == Status.NOT_CACHED || status == Status.STALE || status == Status.BAD_REQUEST) {
          throw new NotServedException(status);
        }
        if (status != Status.OK) {
          throw new IOException("Peer " + owner.id() + " answered " + status);
        }
        for (int b = first; b < end; b++) {
          byte[] bytes = answer.nextBlock(version.blockLength(b, blockSize));
          if (bytes == null) {
            return;
          }
          received.accept(new PeerBlock(version, b, bytes, 0, bytes.length));
        }
        answer.end();
      }
    }
  }

  /** Secures a connection to an owner: TLS, or nothing at all. */
  @FunctionalInterface
  private interface Handshake {
    Socket secure(Socket connected, String host, int port) throws IOException;
  }

  /**
   * The owner has not cached the blocks and did not fetch them (or the source no longer has the
   * version, or the owner does not fetch from that store): not a failure of the peer.
   */
  private static final class NotServedException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient Status status;

    NotServedException(Status status) {
      super(status.toString());
      this.status = status;
    }
  }
}
