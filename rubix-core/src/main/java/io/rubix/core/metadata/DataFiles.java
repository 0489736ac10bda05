package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.DataFileLayout;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The life of a data file, which only the metadata service creates and deletes: readers and writers
 * only ever open existing files. A file is created at its {@link DataFileLayout#liveLength live length}
 * and truncated to zero before it is unlinked, so that readers holding it open can tell a dropped file
 * from a live one (see {@link DataFileLayout}). Blocks are checked here against the CRC32C a writer
 * claims before they are published: the metadata service never takes a writer's word for its bytes.
 *
 * <p>All methods do file I/O: callers must not hold the metadata lock.
 */
final class DataFiles {
  private static final Set<PosixFilePermission> GROUP_READ_WRITE = Set.of(
      PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE);

  private DataFiles() {}

  /**
   * Creates {@code file} (and its directory) for {@code version}, owner/group read-write, at its live
   * length with nothing allocated. Never reuses an existing file: names carry a generation.
   */
  static void create(Path file, ObjectVersion version) throws IOException {
    Files.createDirectories(file.getParent());
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(GROUP_READ_WRITE));
    } catch (FileAlreadyExistsException orphan) {
      // left by an earlier service without a journal (names restart at generation 1 there): nobody
      // knows its bytes, so it is replaced, never reused
      delete(file);
      Files.createFile(file, PosixFilePermissions.asFileAttribute(GROUP_READ_WRITE));
    }
    // the creating JVM's umask (often 022) masks the group's write bit; other JVMs of the node's
    // rubix group fill blocks of this file too, so set the mode outright
    Files.setPosixFilePermissions(file, GROUP_READ_WRITE);
    setLength(file, DataFileLayout.liveLength(version));
  }

  /** Extends {@code file} to {@code length} with ftruncate: a hole, nothing allocated (a written byte would take a whole page). */
  private static void setLength(Path file, long length) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("Cache data file " + file + " is not a regular file");
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(length);
    }
  }

  /**
   * Gives a recovered data file of {@code version} its live length when it is shorter (files of
   * earlier releases); false when it is longer than that, which no release ever wrote.
   */
  static boolean makeLive(Path file, ObjectVersion version) throws IOException {
    long live = DataFileLayout.liveLength(version);
    long size = Files.size(file);
    if (size < live) {
      setLength(file, live);
    }
    return size <= live;
  }

  /** What {@link #check} found. */
  enum BlockCheck {
    /** The block's bytes have the CRC32C, in a file at its live length. */
    INTACT,
    /** The file is live but the block's bytes have another CRC32C. */
    MISMATCH,
    /** The file is missing, or not at its live length (dropped, or truncated by someone else). */
    GONE
  }

  /**
   * Checks block {@code block} of {@code file} against {@code crc32c}.
   *
   * @param scratch a buffer of at least the block's length, overwritten
   */
  static BlockCheck check(Path file, ObjectVersion version, int blockSize, int block, int crc32c, ByteBuffer scratch) throws IOException {
    int length = version.blockLength(block, blockSize);
    long position = (long) block * blockSize;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      scratch.clear().limit(length);
      while (scratch.hasRemaining()) {
        if (channel.read(scratch, position + scratch.position()) < 0) {
          return BlockCheck.GONE;
        }
      }
      if (channel.size() != DataFileLayout.liveLength(version)) {
        return BlockCheck.GONE;
      }
    } catch (NoSuchFileException e) {
      return BlockCheck.GONE;
    }
    scratch.flip();
    CRC32C crc = new CRC32C();
    crc.update(scratch);
    return (int) crc.getValue() == crc32c ? BlockCheck.INTACT : BlockCheck.MISMATCH;
  }

  /** Truncates {@code file} to zero, so that readers holding it open see it gone, then unlinks it. */
  static void delete(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      channel.truncate(0);
    } catch (NoSuchFileException e) {
      return;
    }
    Files.deleteIfExists(file);
  }
}
