package io.rubix.hadoop;

import java.io.EOFException;
import java.io.IOException;
import java.util.function.IntConsumer;
import org.apache.hadoop.fs.FSDataInputStream;

/** Reading a range of a file from a Hadoop stream as its bytes arrive: what the sources of readers and owners share. */
public final class RangeReads {
  /** How many bytes arrive between two announcements. */
  public static final int ANNOUNCE_BYTES = 64 * 1024;

  private RangeReads() {}

  /**
   * Reads exactly {@code length} bytes of {@code in} from {@code position} into {@code buffer[offset..]},
   * telling {@code arrived} how many are in every {@value #ANNOUNCE_BYTES} bytes and at the end. Opened with
   * the random read policy, the stream's first read asks for the whole range, one request, and the reads
   * after it continue that request.
   *
   * @throws EOFException when the stream ends first; {@code what} names the object in its message
   */
  public static void readFully(FSDataInputStream in, String what, long position, byte[] buffer, int offset, int length, IntConsumer arrived)
      throws IOException {
    in.seek(position);
    int read = 0;
    int announced = 0;
    while (read < length) {
      int n = in.read(buffer, offset + read, length - read);
      if (n < 0) {
        throw new EOFException("Source " + what + " ended at " + (position + read) + ", reading [" + position + ", +" + length + ")");
      }
      read += n;
      if (read - announced >= ANNOUNCE_BYTES || read == length) {
        arrived.accept(read);
        announced = read;
      }
    }
  }
}
