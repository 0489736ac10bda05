package io.rubix.spi.wire;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.wire.TransferProtocol.BadResponseException;
import io.rubix.spi.wire.TransferProtocol.ProtocolException;
import io.rubix.spi.wire.TransferProtocol.Status;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import javax.crypto.Mac;

/**
 * Reads one answer of the transfer protocol as a reader receives it ({@link TransferProtocol}): a
 * block is returned only once all its bytes, its CRC32C and, with a secret, its tag are in and
 * verified; a block begun and not ended (the owner stopped, the connection broke) is never returned.
 * Used by one thread.
 */
public final class AnswerDecoder {
  private final DataInputStream in;
  private final Mac mac;
  private final String what;
  private final byte[] word = new byte[4];
  private boolean ended;

  /**
   * @param mac the response MAC bound to the request (every tag must verify), or null without a secret
   * @param what the answer, for messages
   */
  public AnswerDecoder(DataInputStream in, Mac mac, String what) {
    this.in = requireNonNull(in, "in is null");
    this.mac = mac;
    this.what = requireNonNull(what, "what is null");
  }

  /** Reads the status; for any status but OK also its tag (verified with a secret). */
  public Status status() throws IOException {
    Status status = TransferProtocol.readStatus(in);
    update(TransferProtocol.encodeStatus(status));
    if (status != Status.OK) {
      TransferProtocol.verifyTag(in, mac, what);
      ended = true;
    }
    return status;
  }

  /**
   * The next block of an OK answer, which must be {@code length} bytes long, verified; or null when the
   * answer ends here.
   *
   * @throws BadResponseException when the block's bytes do not match its CRC32C or a tag is missing or wrong
   * @throws ProtocolException when the frames break the protocol (a block longer or shorter than {@code length})
   */
  public byte[] nextBlock(int length) throws IOException {
    if (ended) {
      return null;
    }
    byte[] block = new byte[length];
    int received = 0;
    while (true) {
      int frame = readInt();
      if (frame == TransferProtocol.END) {
        TransferProtocol.verifyTag(in, mac, what);
        ended = true;
        return null;
      }
      if (frame == TransferProtocol.BLOCK_END) {
        if (received != length) {
          throw new ProtocolException("Block of " + received + " bytes, expected " + length + ", in " + what);
        }
        int crc = readInt();
        TransferProtocol.verifyTag(in, mac, what);
        CRC32C actual = new CRC32C();
        actual.update(block);
        if ((int) actual.getValue() != crc) {
          throw new BadResponseException("Checksum mismatch in " + what);
        }
        return block;
      }
      if (frame < 0 || frame > length - received) {
        throw new ProtocolException("Frame of " + frame + " bytes after " + received + " of a block of " + length + " in " + what);
      }
      in.readFully(block, received, frame);
      if (mac != null) {
        mac.update(block, received, frame);
      }
      received += frame;
    }
  }

  /**
   * Reads the end of an OK answer whose blocks were all read.
   *
   * @throws ProtocolException when more follows
   */
  public void end() throws IOException {
    if (ended) {
      return;
    }
    if (readInt() != TransferProtocol.END) {
      throw new ProtocolException("More blocks than asked for in " + what);
    }
    TransferProtocol.verifyTag(in, mac, what);
    ended = true;
  }

  private int readInt() throws IOException {
    in.readFully(word);
    update(word);
    return ByteBuffer.wrap(word).getInt();
  }

  private void update(byte[] bytes) {
    if (mac != null) {
      mac.update(bytes);
    }
  }
}
