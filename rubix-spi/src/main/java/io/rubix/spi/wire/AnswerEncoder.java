package io.rubix.spi.wire;

import io.rubix.spi.wire.TransferProtocol.Status;
import java.nio.ByteBuffer;
import javax.crypto.Mac;

/**
 * The bytes of one answer of the transfer protocol, as the owner sends them ({@link TransferProtocol}):
 * status, block frames, block ends and tags, with the answer's running response MAC when the request
 * was authenticated. The caller writes every array this returns, and every data byte it announced with
 * {@link #frame} and passed to {@link #data}, in that order. Used by one thread.
 */
public final class AnswerEncoder {
  private final Mac mac;

  /** An answer MACed with {@code mac} (bound to its request), or without tags' MACs when it is null. */
  public AnswerEncoder(Mac mac) {
    this.mac = mac;
  }

  /** Whether the data bytes must pass through {@link #data} (the answer is MACed). */
  public boolean macs() {
    return mac != null;
  }

  /** The answer's first bytes; for any status but OK the whole answer, tag included. */
  public byte[] status(Status status) {
    byte[] header = TransferProtocol.encodeStatus(status);
    update(header);
    if (status == Status.OK) {
      return header;
    }
    byte[] tag = TransferProtocol.tag(mac);
    byte[] all = new byte[header.length + tag.length];
    System.arraycopy(header, 0, all, 0, header.length);
    System.arraycopy(tag, 0, all, header.length, tag.length);
    return all;
  }

  /** The header of a frame of {@code length} (&gt; 0) data bytes of the current block. */
  public byte[] frame(int length) {
    if (length <= 0) {
      throw new IllegalArgumentException("A frame carries at least one byte: " + length);
    }
    byte[] header = ByteBuffer.allocate(4).putInt(length).array();
    update(header);
    return header;
  }

  /** Data bytes about to be sent, {@code bytes}' remaining ones (its position is left unchanged). */
  public void data(ByteBuffer bytes) {
    if (mac != null) {
      mac.update(bytes.duplicate());
    }
  }

  /** The end of the current block: its CRC32C (of exactly the data bytes sent for it) and a tag. */
  public byte[] blockEnd(int crc32c) {
    byte[] marker = ByteBuffer.allocate(8).putInt(TransferProtocol.BLOCK_END).putInt(crc32c).array();
    return withTag(marker);
  }

  /** The end of the answer: no more blocks. */
  public byte[] end() {
    return withTag(ByteBuffer.allocate(4).putInt(TransferProtocol.END).array());
  }

  private byte[] withTag(byte[] marker) {
    update(marker);
    byte[] tag = TransferProtocol.tag(mac);
    byte[] all = new byte[marker.length + tag.length];
    System.arraycopy(marker, 0, all, 0, marker.length);
    System.arraycopy(tag, 0, all, marker.length, tag.length);
    return all;
  }

  private void update(byte[] bytes) {
    if (mac != null) {
      mac.update(bytes);
    }
  }
}
