package io.rubix.presto.testing;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;

/**
 * The reads the engine-classpath scenarios make of one file and how they are checked: the whole file
 * sequentially in odd-sized chunks, then 20 positioned ranges (and a one-byte read after a seek to each),
 * chosen by a seed. Uses only the Hadoop 2.7 API.
 */
public final class ReadPattern {
  private static final int RANGES = 20;
  private static final int MAX_RANGE = 200_000;

  /** Bytes read and how many of the reads returned bytes other than {@code expected}'s. */
  public record Result(long bytes, int mismatches) {
    Result plus(long moreBytes, boolean equal) {
      return new Result(bytes + moreBytes, mismatches + (equal ? 0 : 1));
    }
  }

  private ReadPattern() {}

  public static Result check(FSDataInputStream in, byte[] expected, long seed) throws IOException {
    byte[] sequential = readAll(in, expected.length);
    Result result = new Result(0, 0).plus(sequential.length, Arrays.equals(sequential, expected));
    Random random = new Random(seed);
    for (int i = 0; i < RANGES; i++) {
      int length = random.nextInt(Math.min(expected.length, MAX_RANGE) + 1);
      int position = random.nextInt(expected.length - length + 1);
      byte[] range = new byte[length];
      in.readFully(position, range, 0, length);
      result = result.plus(length, Arrays.equals(range, 0, length, expected, position, position + length));
      in.seek(position);
      int b = in.read();
      result = result.plus(0, length == 0 || b == (expected[position] & 0xff));
    }
    return result;
  }

  private static byte[] readAll(InputStream in, int expectedLength) throws IOException {
    byte[] result = new byte[expectedLength + 1];
    int total = 0;
    byte[] chunk = new byte[7919];
    for (int n; (n = in.read(chunk, 0, chunk.length)) > 0; ) {
      if (total + n > result.length) {
        result = Arrays.copyOf(result, total + n);
      }
      System.arraycopy(chunk, 0, result, total, n);
      total += n;
    }
    return Arrays.copyOf(result, total);
  }
}
