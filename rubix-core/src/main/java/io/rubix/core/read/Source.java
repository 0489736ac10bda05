package io.rubix.core.read;

import java.io.IOException;

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
}
