package io.rubix.testing;

import java.util.zip.CRC32C;

/**
 * Blocks that are not all zeros but have the CRC32C of zeros of their length: the collision a writer
 * must never commit. Found, not searched for: for a fixed length CRC32C is affine over GF(2), so
 * {@code crc(x) ^ crc(zeros)} is linear in {@code x}; the 64 bits of the first 8 bytes map into a
 * 32-bit space, so some non-empty set of them maps to 0 there, and Gaussian elimination finds it.
 */
public final class ZeroCrcCollisions {
  private ZeroCrcCollisions() {}

  /** A non-zero block of {@code length} bytes (at least 8) whose CRC32C is that of {@code length} zeros; only its first 8 bytes are set. */
  public static byte[] block(int length) {
    if (length < 8) {
      throw new IllegalArgumentException("a collision needs at least 8 bytes: " + length);
    }
    int zero = crc(new byte[length]);
    // basis of the images seen so far, by highest bit, with the set of input bits that makes each
    int[] image = new int[32];
    long[] inputs = new long[32];
    for (int bit = 0; bit < 64; bit++) {
      byte[] single = new byte[length];
      single[bit / 8] = (byte) (1 << (bit % 8));
      int v = crc(single) ^ zero;
      long m = 1L << bit;
      while (v != 0) {
        int top = 31 - Integer.numberOfLeadingZeros(v);
        if (image[top] == 0) {
          image[top] = v;
          inputs[top] = m;
          break;
        }
        v ^= image[top];
        m ^= inputs[top];
      }
      if (v == 0) {
        // m holds this bit and lower ones only: never empty
        byte[] block = new byte[length];
        for (int i = 0; i < 64; i++) {
          if ((m >>> i & 1) != 0) {
            block[i / 8] ^= (byte) (1 << (i % 8));
          }
        }
        return block;
      }
    }
    throw new AssertionError("64 vectors in a 32-dimensional space are dependent");
  }

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }
}
