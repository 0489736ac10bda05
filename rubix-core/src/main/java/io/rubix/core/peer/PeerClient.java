package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.peer.TransferProtocol.Status;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.cluster.ClusterNode;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads blocks of splits other nodes own from those nodes' data-transfer ports
 * ({@link TransferProtocol}): one connection per request of at most {@link TransferProtocol#MAX_BLOCKS}
 * blocks, every block checked against the CRC32C the owner recorded for it. A peer that fails is
 * reported down to the cluster's {@link io.rubix.core.cluster.NodeLiveness}, which takes it out of the
 * ring until it answers again; a peer that answers NOT_CACHED is not.
 */
public final class PeerClient implements PeerReader {
  private static final Logger LOG = LoggerFactory.getLogger(PeerClient.class);

  private final PeerConfig config;
  private final ClusterLocality locality;
  private final byte[] secret;
  private final int timeoutMillis;

  public PeerClient(PeerConfig config, ClusterLocality locality) {
    this.config = requireNonNull(config, "config is null");
    this.locality = requireNonNull(locality, "locality is null");
    this.secret = TransferProtocol.secret(config.secret());
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.timeout().toMillis()));
    if (config.port() <= 0) {
      throw new IllegalArgumentException("Peer reads need a fixed transfer port, not " + config.port());
    }
  }

  @Override
  public Result read(ObjectVersion version, int blockSize, int first, int end, long position, ByteBuffer dst) {
    long limit = position + dst.remaining();
    long served = 0;
    PeerBlock last = null;
    int b = first;
    while (b < end) {
      ClusterNode owner = peerOf(version.path(), (long) b * blockSize);
      if (owner == null) {
        break;
      }
      int groupEnd = b + 1;
      while (groupEnd < end && groupEnd - b < TransferProtocol.MAX_BLOCKS && owner.equals(peerOf(version.path(), (long) groupEnd * blockSize))) {
        groupEnd++;
      }
      try {
        last = fetch(owner, version, blockSize, b, groupEnd, position, dst);
      } catch (NotCachedException e) {
        LOG.debug("Blocks [{}, {}) of {} are not cached on {}", b, groupEnd, version.path(), owner.id());
        return new Result(served, true, last);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Peer read of blocks [{}, {}) of {} from {}:{} failed: {}", b, groupEnd, version.path(), owner.host(), config.port(), e.toString());
        locality.liveness().markDown(owner, "peer read from port " + config.port() + " failed: " + e);
        return new Result(served, true, last);
      }
      served = Math.min(limit, (long) groupEnd * blockSize) - position;
      b = groupEnd;
    }
    return new Result(served, false, last);
  }

  /** The owner (among the live nodes) of the split holding {@code offset}, or null when it is this node or unknown. */
  private ClusterNode peerOf(String path, long offset) {
    Optional<ClusterNode> owner = locality.ownerOf(path, offset);
    if (owner.isEmpty() || owner.equals(locality.view().local())) {
      return null;
    }
    return owner.get();
  }

  /** Fetches blocks {@code [first, end)} from {@code owner} into {@code dst}; returns the last of them. */
  private PeerBlock fetch(ClusterNode owner, ObjectVersion version, int blockSize, int first, int end, long position, ByteBuffer dst) throws IOException {
    byte[] request = TransferProtocol.encode(new TransferProtocol.Request(version, blockSize, first, end - first), secret);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(owner.host(), config.port()), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      socket.setTcpNoDelay(true);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
      Status status = TransferProtocol.readStatus(in);
      if (status == Status.NOT_CACHED) {
        throw new NotCachedException();
      }
      if (status != Status.OK) {
        throw new IOException("Peer " + owner.id() + " answered " + status);
      }
      int count = in.readInt();
      if (count != end - first) {
        throw new TransferProtocol.ProtocolException("Peer sent " + count + " blocks, asked for " + (end - first));
      }
      int[] lengths = new int[count];
      int[] crcs = new int[count];
      for (int i = 0; i < count; i++) {
        lengths[i] = in.readInt();
        crcs[i] = in.readInt();
        if (lengths[i] != version.blockLength(first + i, blockSize)) {
          throw new TransferProtocol.ProtocolException("Peer sent " + lengths[i] + " bytes for block " + (first + i) + " of " + version);
        }
      }
      byte[] block = new byte[lengths[0]];
      long limit = position + dst.remaining();
      for (int i = 0; i < count; i++) {
        int b = first + i;
        if (i == count - 1 && count > 1) {
          // the buffer handed back as the last block is never the one reused for the others
          block = new byte[lengths[i]];
        }
        in.readFully(block, 0, lengths[i]);
        CRC32C crc = new CRC32C();
        crc.update(block, 0, lengths[i]);
        if ((int) crc.getValue() != crcs[i]) {
          throw new IOException("Checksum mismatch in block " + b + " of " + version.path() + " from peer " + owner.id());
        }
        long blockStart = (long) b * blockSize;
        long from = Math.max(position, blockStart);
        long to = Math.min(limit, blockStart + lengths[i]);
        if (from < to) {
          dst.put(dst.position() + (int) (from - position), block, (int) (from - blockStart), (int) (to - from));
        }
      }
      return new PeerBlock(version, end - 1, block, lengths[count - 1]);
    }
  }

  /** The owner has not cached the blocks: not a failure of the peer. */
  private static final class NotCachedException extends IOException {
    private static final long serialVersionUID = 1L;
  }
}
