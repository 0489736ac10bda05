package io.rubix.bookkeeper.transfer;

import io.rubix.spi.wire.TransferProtocol;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.FilterInputStream;
import java.io.IOException;

/** Peer request frames as a client sent them, for tests that stand in for a transfer server. */
final class RequestFrames {
  private RequestFrames() {}

  /** Reads one request frame from {@code in} and returns its bytes, consuming nothing beyond it. */
  static byte[] read(DataInputStream in) throws IOException {
    ByteArrayOutputStream copy = new ByteArrayOutputStream();
    FilterInputStream tee = new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          copy.write(b);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        // one byte at a time: nothing beyond the frame is consumed
        int c = read();
        if (c < 0) {
          return -1;
        }
        b[off] = (byte) c;
        return 1;
      }
    };
    TransferProtocol.decode(new DataInputStream(tee), null);
    return copy.toByteArray();
  }
}
