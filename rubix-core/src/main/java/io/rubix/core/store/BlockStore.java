package io.rubix.core.store;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ChecksumVerification;
import io.rubix.spi.ObjectVersion;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads and writes block bytes in local sparse data files. Block {@code b} of a version lives at
 * offset {@code b * blockSize} of the version's data file. Reads check bytes against the CRC32C the
 * metadata recorded, per the configured {@link ChecksumVerification}; writes return the CRC32C to
 * record. Thread-safe: all I/O is positioned, on channels shared through {@link CacheFiles}.
 */
public final class BlockStore implements Closeable {
  private final int blockSize;
  private final CacheFiles files;
  private final ChecksumVerification verification;
  private final ScratchBuffers scratch;

  public BlockStore(int blockSize, CacheFiles files, ChecksumVerification verification, int pooledScratchBuffers) {
    this.blockSize = blockSize;
    this.files = requireNonNull(files, "files is null");
    this.verification = requireNonNull(verification, "verification is null");
    this.scratch = new ScratchBuffers(blockSize, pooledScratchBuffers);
  }

  public CacheFiles files() {
    return files;
  }

  /**
   * Reads {@code dst.remaining()} bytes at {@code position} of {@code version} from {@code dataFile},
   * all within block {@code block}, whose published CRC32C is {@code crc32c}.
   *
   * @throws CacheCorruptionException when the bytes do not match or the file is too short
   * @throws IOException when the file cannot be read
   */
  public void read(Path dataFile, ObjectVersion version, int block, int crc32c, long position, ByteBuffer dst) throws IOException {
    int start = dst.position();
    CacheFile file = files.get(dataFile);
    try {
      readOnce(file, version, block, crc32c, position, dst);
    } catch (ClosedChannelException closedUnderUs) {
      // closed by eviction from the open-file cache, or by an interrupted reader (which closes a FileChannel for
      // every thread): drop the handle so no reader keeps using it, and retry once on a fresh one unless interrupted
      closed(file, closedUnderUs);
      dst.position(start);
      readOnce(files.get(dataFile), version, block, crc32c, position, dst);
    }
  }

  private void closed(CacheFile file, ClosedChannelException e) throws InterruptedIOException {
    files.discard(file);
    if (e instanceof ClosedByInterruptException || Thread.currentThread().isInterrupted()) {
      InterruptedIOException interrupted = new InterruptedIOException("Interrupted using cache file " + file.path());
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  private void readOnce(CacheFile file, ObjectVersion version, int block, int crc32c, long position, ByteBuffer dst) throws IOException {
    long blockStart = (long) block * blockSize;
    int blockLength = version.blockLength(block, blockSize);
    int length = dst.remaining();
    if (position < blockStart || position + length > blockStart + blockLength) {
      throw new IllegalArgumentException("Read [" + position + ", " + (position + length) + ") is not inside block " + block + " of " + version);
    }
    boolean verify = switch (verification) {
      case ALWAYS -> true;
      case FIRST_READ -> !file.verified(block);
      case NEVER -> false;
    };
    if (!verify) {
      readFully(file, position, dst, block);
      return;
    }
    if (length == blockLength) {
      ByteBuffer target = dst.duplicate();
      readFully(file, position, dst, block);
      target.limit(target.position() + length);
      check(file, version, block, crc32c, target);
      return;
    }
    ByteBuffer whole = scratch.take();
    try {
      whole.limit(blockLength);
      readFully(file, blockStart, whole, block);
      whole.flip();
      check(file, version, block, crc32c, whole.duplicate());
      whole.position((int) (position - blockStart)).limit((int) (position - blockStart) + length);
      dst.put(whole);
    } finally {
      scratch.give(whole);
    }
  }

  private void check(CacheFile file, ObjectVersion version, int block, int expected, ByteBuffer bytes) throws CacheCorruptionException {
    int actual = crc32c(bytes);
    if (actual != expected) {
      file.forgetVerified(block);
      throw new CacheCorruptionException("Checksum mismatch in cache file " + file.path() + " for block " + block + " of " + version
          + ": expected CRC32C " + Integer.toHexString(expected) + ", found " + Integer.toHexString(actual), block);
    }
    file.markVerified(block);
  }

  /** Writes one whole block at its offset in {@code dataFile} and returns its CRC32C. */
  public int write(Path dataFile, int block, ByteBuffer bytes) throws IOException {
    int crc = crc32c(bytes.duplicate());
    int start = bytes.position();
    CacheFile file = files.get(dataFile);
    try {
      writeOnce(file, block, bytes);
    } catch (ClosedChannelException closedUnderUs) {
      closed(file, closedUnderUs);
      bytes.position(start);
      writeOnce(files.get(dataFile), block, bytes);
    }
    return crc;
  }

  private void writeOnce(CacheFile file, int block, ByteBuffer bytes) throws IOException {
    FileChannel channel = file.channel();
    long position = (long) block * blockSize;
    while (bytes.hasRemaining()) {
      position += channel.write(bytes, position);
    }
  }

  public static int crc32c(ByteBuffer bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  private static void readFully(CacheFile file, long position, ByteBuffer dst, int block) throws IOException {
    FileChannel channel = file.channel();
    long at = position;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        throw new CacheCorruptionException("Cache file " + file.path() + " is truncated: block " + block + " ends past its length "
            + channel.size() + " (reading at " + at + ")", block);
      }
      at += n;
    }
  }

  @Override
  public void close() {
    files.close();
  }

}
