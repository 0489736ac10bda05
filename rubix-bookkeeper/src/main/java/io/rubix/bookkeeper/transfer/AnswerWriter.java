package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.fetch.ArrivingBlock;
import io.rubix.spi.wire.AnswerEncoder;
import io.rubix.spi.wire.TransferProtocol.Status;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the blocks of one OK answer on a connection, each from where the owner has it: a cache file
 * (with the CRC32C recorded at commit) or a fetch from the source under way (as the bytes arrive, with
 * the CRC32C of the bytes sent). The OK status goes out with the first block's first bytes, so that an
 * answer whose first block fails before any byte can still be another status. A block that cannot be
 * sent whole ends the answer: the reader drops a block begun and not ended.
 *
 * <p>Without a MAC, on a plaintext connection, a cached block goes from the file to the socket with
 * {@link FileChannel#transferTo} (no copy through the heap); with a MAC, or through TLS, it is read into
 * one heap buffer, MACed if it must be, and written from those very bytes, so the MAC always covers
 * exactly what was sent and TLS gets large writes. Confined to one transfer worker.
 */
final class AnswerWriter {
  private static final Logger LOG = LoggerFactory.getLogger(AnswerWriter.class);
  /** The buffer cached blocks go through when they are MACed or encrypted. */
  private static final int BUFFER_BYTES = 256 * 1024;

  private final WritableByteChannel channel;
  /** Whether cached blocks may go to {@link #channel} with {@code transferTo} (a plaintext socket). */
  private final boolean zeroCopy;
  private final AnswerEncoder encoder;
  private final String what;
  private boolean started;
  private long blockBytes;
  private ByteBuffer buffer;

  AnswerWriter(WritableByteChannel channel, boolean zeroCopy, AnswerEncoder encoder, String what) {
    this.channel = requireNonNull(channel, "channel is null");
    this.zeroCopy = zeroCopy;
    this.encoder = requireNonNull(encoder, "encoder is null");
    this.what = requireNonNull(what, "what is null");
  }

  /** Whether the OK status is sent (then the answer must {@link #end}). */
  boolean started() {
    return started;
  }

  /** Bytes of the blocks sent whole. */
  long blockBytes() {
    return blockBytes;
  }

  /**
   * Sends a cached block, {@code [start, start + length)} of {@code file}, recorded with {@code crc32c};
   * false (nothing sent) when the file is shorter.
   */
  boolean sendCached(FileChannel file, long start, int length, int crc32c) throws IOException {
    if (file.size() < start + length) {
      return false;
    }
    start();
    write(ByteBuffer.wrap(encoder.frame(length)));
    if (zeroCopy && !encoder.macs()) {
      transfer(file, start, length);
    } else {
      copy(file, start, length);
    }
    write(ByteBuffer.wrap(encoder.blockEnd(crc32c)));
    blockBytes += length;
    return true;
  }

  /**
   * Sends {@code block} as its bytes arrive, each wait for more of them at most {@code waitNanos};
   * false when the fetch failed or stalled first (part of the block may be sent: end the answer).
   */
  boolean sendArriving(ArrivingBlock block, long waitNanos) throws IOException {
    CRC32C crc = new CRC32C();
    int sent = 0;
    while (sent < block.length()) {
      int arrived;
      try {
        arrived = block.await(sent, waitNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("Interrupted sending " + what);
      } catch (IOException e) {
        LOG.debug("The fetch of {} failed after {} of a block's {} bytes: {}", what, sent, block.length(), e.toString());
        return false;
      }
      if (arrived == sent) {
        LOG.debug("No byte of {} arrived for {} ms after {} of a block's {} bytes", what, waitNanos / 1_000_000, sent, block.length());
        return false;
      }
      start();
      ByteBuffer bytes = block.bytes(sent, arrived);
      crc.update(bytes.duplicate());
      write(ByteBuffer.wrap(encoder.frame(arrived - sent)));
      encoder.data(bytes);
      write(bytes);
      sent = arrived;
    }
    write(ByteBuffer.wrap(encoder.blockEnd((int) crc.getValue())));
    blockBytes += block.length();
    return true;
  }

  /** Ends a started answer. */
  void end() throws IOException {
    write(ByteBuffer.wrap(encoder.end()));
  }

  private void start() throws IOException {
    if (!started) {
      started = true;
      write(ByteBuffer.wrap(encoder.status(Status.OK)));
    }
  }

  /** Sends {@code [start, start + length)} of {@code file} without copying it through the heap. */
  private void transfer(FileChannel file, long start, long length) throws IOException {
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

  /** Sends {@code [start, start + length)} of {@code file} through one buffer, adding exactly the bytes sent to the MAC (if any). */
  private void copy(FileChannel file, long start, long length) throws IOException {
    if (buffer == null) {
      buffer = ByteBuffer.allocate(BUFFER_BYTES);
    }
    long sent = 0;
    while (sent < length) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), length - sent));
      int n = file.read(buffer, start + sent);
      if (n <= 0) {
        throw new EOFException("Cache file ended after " + sent + " of " + length + " bytes while sending " + what);
      }
      buffer.flip();
      encoder.data(buffer);
      write(buffer);
      sent += n;
    }
  }

  private void write(ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }
}
