package io.rubix.core.client;

import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.wire.ConnectionAuth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's BookKeeper secret: 32 random bytes, hex, in a file the daemon creates mode {@code 0640}
 * in its own group-owned directory ({@code <first cache dir>/bookkeeper/secret} unless
 * {@code rubix.bookkeeper.secret.file} says otherwise). Reading it is what makes a process a member of
 * the cache group as far as the daemon's Thrift port is concerned (see {@link ConnectionAuth}).
 */
public final class BookKeeperSecret {
  private static final Logger LOG = LoggerFactory.getLogger(BookKeeperSecret.class);
  private static final int BYTES = 32;
  private static final Set<PosixFilePermission> OWNER_WRITE_GROUP_READ =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.GROUP_READ);

  private BookKeeperSecret() {}

  /** The secret in {@code file}, for a client. */
  public static byte[] read(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).strip();
    } catch (NoSuchFileException e) {
      throw new IOException("BookKeeper secret file " + file + " does not exist: is the BookKeeper running on this node, and is "
          + BookKeeperKeys.SECRET_FILE.name() + " the same here and in the daemon's configuration?", e);
    } catch (AccessDeniedException e) {
      throw new IOException("Cannot read the BookKeeper secret file " + file + ": only members of the cache directory's group may use the"
          + " node's BookKeeper (add this process's user to that group, or set " + BookKeeperKeys.SECRET_FILE.name() + ")", e);
    }
    try {
      byte[] secret = HexFormat.of().parseHex(text);
      if (secret.length >= ConnectionAuth.MIN_SECRET_BYTES) {
        return secret;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw new IOException("BookKeeper secret file " + file + " does not hold at least " + ConnectionAuth.MIN_SECRET_BYTES
        + " hex-encoded bytes (it is written whole by the daemon: delete it and restart the daemon to make a new one)");
  }

  /**
   * The secret in {@code file}, for the daemon: created with fresh random bytes if the file does not
   * exist (atomically: a concurrent creator's secret wins and is returned), and made {@code 0640} if
   * its permissions are wider.
   */
  public static byte[] readOrCreate(Path file, SecureRandom random) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    if (!Files.exists(file)) {
      byte[] fresh = new byte[BYTES];
      random.nextBytes(fresh);
      Path temp = file.resolveSibling(file.getFileName() + ".new-" + Long.toUnsignedString(random.nextLong(), 36));
      Files.createFile(temp, PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
      try {
        Files.writeString(temp, HexFormat.of().formatHex(fresh) + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(temp, OWNER_WRITE_GROUP_READ);
        try {
          // a hard link never replaces an existing file: of two daemons starting at once, one secret wins
          Files.createLink(file, temp);
          LOG.info("Created the BookKeeper secret file {}", file);
        } catch (FileAlreadyExistsException raced) {
          // the other one's
        }
      } finally {
        Files.deleteIfExists(temp);
      }
    }
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
    if (!OWNER_WRITE_GROUP_READ.containsAll(permissions)) {
      LOG.warn("BookKeeper secret file {} had permissions {}; setting them to rw-r-----", file, PosixFilePermissions.toString(permissions));
      Files.setPosixFilePermissions(file, OWNER_WRITE_GROUP_READ);
    }
    return read(file);
  }
}
