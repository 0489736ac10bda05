package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Maps object versions to local data files. A file name is the SHA-256 of the version's canonical key
 * plus a generation number, so any remote path (with {@code ..}, odd characters, non-ASCII, any
 * length) maps to a fixed-length hex name inside one of the cache roots and can never escape them;
 * distinct versions never share a file, and a re-cached version never reuses an evicted file's name.
 */
final class CacheLayout {
  static final String DATA_SUFFIX = ".blocks";

  private final List<Path> roots;

  CacheLayout(List<Path> roots) {
    this.roots = List.copyOf(requireNonNull(roots, "roots is null"));
    if (roots.isEmpty()) {
      throw new IllegalArgumentException("no cache roots");
    }
  }

  List<Path> roots() {
    return roots;
  }

  int diskOf(ObjectVersion version) {
    return Math.floorMod(version.path().hashCode(), roots.size());
  }

  Path dataFile(ObjectVersion version, int disk, long generation) {
    String hex = sha256Hex(version.canonicalKey());
    return roots.get(disk).resolve(hex.substring(0, 2)).resolve(hex + "-" + generation + DATA_SUFFIX);
  }

  static String sha256Hex(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
