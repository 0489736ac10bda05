package io.rubix.bookkeeper;

import java.util.Random;

/**
 * The bytes of version {@code n} of an object in the chaos and crash tests, derived from the key and
 * the version number only, so the test JVM that writes them and the reader JVMs that check them agree
 * without shipping megabytes over a pipe.
 */
final class ChaosContent {
  private ChaosContent() {}

  static byte[] bytes(String key, int version, int length) {
    byte[] data = new byte[length];
    new Random(key.hashCode() * 1_000_003L + version).nextBytes(data);
    return data;
  }
}
