package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the cached bytes of an object version live on local disk, and how a reader tells a live data
 * file from a dropped one. Both sides of the metadata protocol use it: the metadata service to name
 * the files it creates, and a client of a BookKeeper daemon to check every data-file path the daemon
 * answers before it opens it (it derives the name from the version it asked about, so a daemon, or
 * whoever answers on its port, can never make a reader open or write a path of its choosing).
 *
 * <h2>Names</h2>
 * {@code root/hh/<sha256 of the version's canonical key>-<generation>.blocks}, where {@code hh} is the
 * hash's first two hex digits and {@code root} one of the cache roots: any remote path maps to a
 * fixed-length name that cannot escape the roots; a re-cached version never reuses an evicted name.
 *
 * <h2>Liveness by length</h2>
 * A data file is created holding {@link #liveLength} = version length + 1 bytes (sparse: nothing is
 * allocated), and block writes never change that length, since every block ends at or before the
 * version's length. Dropping a file truncates it to zero before unlinking it. A writer that still held
 * the file open and writes a block into it afterwards can extend it only to the end of that block,
 * at most the version's length, so a dropped file never has its live length again. A reader that
 * finds the live length <em>after</em> reading knows the bytes came from a file that was never
 * dropped before that moment; anything else means the file is gone, never that its holes are data.
 */
public final class DataFileLayout {
  public static final String DATA_SUFFIX = ".blocks";
  /** The subdirectory of each cache directory that the BookKeeper daemon owns: its cache roots. */
  public static final String DAEMON_ROOT = "bookkeeper";
  private static final Pattern NAME = Pattern.compile("([0-9a-f]{64})-([1-9][0-9]{0,18})" + Pattern.quote(DATA_SUFFIX));

  private final List<Path> roots;

  /** A layout over {@code roots}, one per cache disk, in configuration order. */
  public DataFileLayout(List<Path> roots) {
    requireNonNull(roots, "roots is null");
    if (roots.isEmpty()) {
      throw new IllegalArgumentException("no cache roots");
    }
    this.roots = roots.stream().map(root -> root.toAbsolutePath().normalize()).toList();
  }

  /** The BookKeeper daemon's cache roots for {@code cacheDirs} (the configured {@code rubix.cache.dirs}). */
  public static List<Path> daemonRoots(List<Path> cacheDirs) {
    return cacheDirs.stream().map(dir -> dir.resolve(DAEMON_ROOT)).toList();
  }

  public List<Path> roots() {
    return roots;
  }

  /** The disk (index into {@link #roots()}) that caches {@code version}. */
  public int diskOf(ObjectVersion version) {
    return Math.floorMod(version.path().hashCode(), roots.size());
  }

  /** The data file of {@code version}'s cached bytes on {@code disk}, generation {@code generation} (positive). */
  public Path dataFile(ObjectVersion version, int disk, long generation) {
    if (generation <= 0) {
      throw new IllegalArgumentException("generation must be positive: " + generation);
    }
    String hex = sha256Hex(version.canonicalKey());
    return roots.get(disk).resolve(hex.substring(0, 2)).resolve(hex + "-" + generation + DATA_SUFFIX);
  }

  /**
   * {@code answered}, a data-file path someone else (a BookKeeper daemon) gave for {@code version}, if
   * it is exactly a name this layout gives that version on one of its roots.
   *
   * @throws IOException naming the path, the version and the roots when it is not
   */
  public Path checkDataFile(ObjectVersion version, String answered) throws IOException {
    requireNonNull(version, "version is null");
    requireNonNull(answered, "answered is null");
    Path path = Path.of(answered);
    Path name = path.getFileName();
    Matcher matcher = name == null ? null : NAME.matcher(name.toString());
    if (path.isAbsolute() && matcher != null && matcher.matches()) {
      long generation = Long.parseLong(matcher.group(2));
      for (int disk = 0; disk < roots.size(); disk++) {
        if (dataFile(version, disk, generation).toString().equals(answered)) {
          return path;
        }
      }
    }
    throw new IOException("Refusing cache data file " + answered + " for " + version + ": it is not the name of that version's data file under "
        + roots);
  }

  /** The length of a live data file of {@code version}: one byte past its last block (see the class comment). */
  public static long liveLength(ObjectVersion version) {
    return version.length() + 1;
  }

  /** The hex SHA-256 of {@code text}'s UTF-8 bytes. */
  public static String sha256Hex(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
