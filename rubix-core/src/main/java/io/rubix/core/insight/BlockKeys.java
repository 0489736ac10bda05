package io.rubix.core.insight;

import io.rubix.spi.ObjectVersion;

/** 64-bit keys of blocks, uniform enough for sketches and hash sampling (SplitMix64 finalizer over the version's fields). */
final class BlockKeys {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private BlockKeys() {}

  /** A key of {@code version}, from which {@link #block} derives its blocks' keys. */
  static long version(ObjectVersion version) {
    long h = mix(version.path().hashCode() * GOLDEN ^ version.length());
    h = mix(h ^ version.modificationTime());
    return mix(h ^ version.etag().hashCode());
  }

  /** The key of block {@code block} of the version whose {@link #version} key is {@code versionKey}. */
  static long block(long versionKey, int block) {
    return mix(versionKey + (block + 1L) * GOLDEN);
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
