package io.rubix.core.read.session;

import java.io.IOException;
import java.util.function.IntConsumer;

/**
 * Ranged reads of one object version from the wrapped (remote) file system. Each call is one
 * independent request, safe to make from several threads at once.
 */
@FunctionalInterface
public interface Source {
  /**
   * Reads exactly {@code length} bytes starting at {@code position} into {@code buffer[offset..]}.
   *
   * @throws java.io.EOFException when the object ends first
   * @throws IOException when the source fails, including when the object changed since its version
   *     was taken (stores that support it, such as S3A with ETag change detection, say so)
   */
  void readFully(long position, byte[] buffer, int offset, int length) throws IOException;

  /**
   * {@link #readFully(long, byte[], int, int)}, with one request, telling {@code arrived} as the bytes
   * come in: after {@code arrived.accept(n)}, {@code buffer[offset, offset + n)} are final. A source
   * that cannot tell announces all of them at the end.
   */
  default void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
    readFully(position, buffer, offset, length);
    arrived.accept(length);
  }
}
