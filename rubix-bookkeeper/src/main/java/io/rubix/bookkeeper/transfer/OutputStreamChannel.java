package io.rubix.bookkeeper.transfer;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * The answer channel of a TLS connection: a heap buffer goes to the stream in one write, so that TLS
 * cuts it into full records ({@link java.nio.channels.Channels#newChannel(OutputStream)} writes 8 KiB at
 * a time); other buffers (read-only bytes of a fetch under way) through a 64 KiB copy. Confined to one
 * transfer worker.
 */
final class OutputStreamChannel implements WritableByteChannel {
  private static final int COPY_BYTES = 64 * 1024;
  private final OutputStream out;
  private byte[] copy;
  private boolean open = true;

  OutputStreamChannel(OutputStream out) {
    this.out = requireNonNull(out, "out is null");
  }

  @Override
  public int write(ByteBuffer bytes) throws IOException {
    int length = bytes.remaining();
    if (bytes.hasArray()) {
      out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), length);
      bytes.position(bytes.limit());
      return length;
    }
    if (copy == null) {
      copy = new byte[COPY_BYTES];
    }
    while (bytes.hasRemaining()) {
      int n = Math.min(copy.length, bytes.remaining());
      bytes.get(copy, 0, n);
      out.write(copy, 0, n);
    }
    return length;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() throws IOException {
    open = false;
    out.close();
  }
}
