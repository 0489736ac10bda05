package io.rubix.core.store;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ChecksumVerification;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.DataFileLayout;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.locks.Lock;
import java.util.function.IntUnaryOperator;
import java.util.zip.CRC32C;

/**
 * Reads and writes block bytes in local sparse data files. Block {@code b} of a version lives at
 * offset {@code b * blockSize} of the version's data file. Reads check bytes against the CRC32C the
 * metadata recorded, per the configured {@link ChecksumVerification}; writes return the CRC32C to
 * record. Thread-safe: all I/O is positioned, on channels shared through {@link CacheFiles}.
 *
 * <p>Every read trusted without a checksum (first-read verification after the first, or none) and
 * every write checks, after its I/O, that the file still has its live length ({@link DataFileLayout}):
 * a file dropped while this JVM held it open fails with {@link CacheFileGoneException}, so trusted
 * bytes can never be holes a late writer left in a dropped file. That costs one {@code fstat} per
 * such call (about 0.7 us, measured with WarmReadBenchmark). A read checked against its CRC32C needs
 * no such check: bytes that match are the block's, wherever they come from. A hole reads as zeros and
 * matches only a block published with the CRC32C of zeros, i.e. one whose source bytes are zeros:
 * writers never commit that CRC32C for other bytes ({@link #committable}).
 */
public final class BlockStore implements Closeable {
  private final int blockSize;
  private final CacheFiles files;
  private final ChecksumVerification verification;
  private final ScratchBuffers scratch;
  /** CRC32C of a whole block of zeros. */
  private final int zeroBlockCrc;

  public BlockStore(int blockSize, CacheFiles files, ChecksumVerification verification, int pooledScratchBuffers) {
    this.blockSize = blockSize;
    this.zeroBlockCrc = zeroCrc32c(blockSize);
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
   * @throws CacheFileGoneException when the file was dropped (it is no longer at its live length)
   * @throws CacheCorruptionException when the bytes do not match in a live file
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

  /**
   * Reads {@code dst.remaining()} bytes at {@code position} of {@code version} from {@code dataFile}:
   * bytes of every block in {@code [first, end)}, a run whose published CRC32Cs {@code crc32c} gives by
   * block. One positioned read serves the run, and one liveness check the blocks it trusts; a block
   * read in part that must be verified (the run's first or last) is read whole on its own, as by
   * {@link #read}. Moves {@code dst}'s position to its limit.
   *
   * @throws CacheCorruptionException naming the first block whose bytes do not match a live file; the
   *     bytes of the blocks before it were read and are the blocks'
   * @throws CacheFileGoneException when the file was dropped (it is no longer at its live length)
   * @throws IOException when the file cannot be read
   */
  public void readRun(Path dataFile, ObjectVersion version, int first, int end, IntUnaryOperator crc32c, long position, ByteBuffer dst)
      throws IOException {
    long to = position + dst.remaining();
    if (first >= end || position < (long) first * blockSize || position >= (long) (first + 1) * blockSize
        || to <= (long) (end - 1) * blockSize || to > (long) (end - 1) * blockSize + version.blockLength(end - 1, blockSize)) {
      throw new IllegalArgumentException("Read [" + position + ", " + to + ") is not a run of blocks [" + first + ", " + end + ") of " + version);
    }
    CacheFile file = files.get(dataFile);
    try {
      readRunOnce(file, version, first, end, crc32c, position, dst.duplicate());
    } catch (ClosedChannelException closedUnderUs) {
      closed(file, closedUnderUs);
      readRunOnce(files.get(dataFile), version, first, end, crc32c, position, dst.duplicate());
    }
    dst.position(dst.limit());
  }

  private void readRunOnce(CacheFile file, ObjectVersion version, int first, int end, IntUnaryOperator crc32c, long position, ByteBuffer dst)
      throws IOException {
    long to = position + dst.remaining();
    int lo = first;
    int hi = end;
    if (readsPartlyVerified(file, version, first, position, to)) {
      long firstEnd = Math.min(to, blockEnd(version, first));
      readOnce(file, version, first, crc32c.applyAsInt(first), position, part(dst, position, position, firstEnd));
      lo++;
    }
    boolean lastApart = hi - 1 >= lo && readsPartlyVerified(file, version, hi - 1, position, to);
    if (lastApart) {
      hi--;
    }
    if (lo < hi) {
      long from = Math.max(position, (long) lo * blockSize);
      long until = Math.min(to, blockEnd(version, hi - 1));
      ByteBuffer bytes = part(dst, position, from, until);
      ByteBuffer read = bytes.duplicate();
      readFully(file, from, bytes, version);
      boolean trusted = false;
      for (int b = lo; b < hi; b++) {
        if (verifies(file, b)) {
          // not read in part (those were taken out above): the whole block is in the bytes read
          long blockStart = (long) b * blockSize;
          check(file, version, b, crc32c.applyAsInt(b), part(read, from, blockStart, blockEnd(version, b)));
        } else {
          trusted = true;
        }
      }
      if (trusted) {
        checkLive(file, version);
      }
    }
    if (lastApart) {
      long lastStart = (long) hi * blockSize;
      readOnce(file, version, hi, crc32c.applyAsInt(hi), lastStart, part(dst, position, lastStart, to));
    }
  }

  /** Whether a read of {@code [from, to)} takes block {@code block} only in part and must verify it (so reads the whole block apart). */
  private boolean readsPartlyVerified(CacheFile file, ObjectVersion version, int block, long from, long to) {
    boolean whole = from <= (long) block * blockSize && to >= blockEnd(version, block);
    return !whole && verifies(file, block);
  }

  private long blockEnd(ObjectVersion version, int block) {
    return (long) block * blockSize + version.blockLength(block, blockSize);
  }

  /** The bytes of {@code [from, to)} in {@code dst}, whose first byte is at {@code position}. */
  private static ByteBuffer part(ByteBuffer dst, long position, long from, long to) {
    return dst.slice(dst.position() + (int) (from - position), (int) (to - from));
  }

  private boolean verifies(CacheFile file, int block) {
    return switch (verification) {
      case ALWAYS -> true;
      case FIRST_READ -> !file.verified(block);
      case NEVER -> false;
    };
  }

  private void readOnce(CacheFile file, ObjectVersion version, int block, int crc32c, long position, ByteBuffer dst) throws IOException {
    long blockStart = (long) block * blockSize;
    int blockLength = version.blockLength(block, blockSize);
    int length = dst.remaining();
    if (position < blockStart || position + length > blockStart + blockLength) {
      throw new IllegalArgumentException("Read [" + position + ", " + (position + length) + ") is not inside block " + block + " of " + version);
    }
    if (!verifies(file, block)) {
      readFully(file, position, dst, version);
      checkLive(file, version);
      return;
    }
    if (length == blockLength) {
      ByteBuffer target = dst.duplicate();
      readFully(file, position, dst, version);
      target.limit(target.position() + length);
      check(file, version, block, crc32c, target);
      return;
    }
    ByteBuffer whole = scratch.take();
    try {
      whole.limit(blockLength);
      readFully(file, blockStart, whole, version);
      whole.flip();
      check(file, version, block, crc32c, whole.duplicate());
      whole.position((int) (position - blockStart)).limit((int) (position - blockStart) + length);
      dst.put(whole);
    } finally {
      scratch.give(whole);
    }
  }

  /**
   * Checks bytes just read against their published CRC32C. A match needs no liveness check: holes match
   * only a block of zeros, whose bytes they then are (see the class comment). A mismatch in a file that
   * is no longer live is a dropped file ({@link CacheFileGoneException}), not corruption.
   */
  private void check(CacheFile file, ObjectVersion version, int block, int expected, ByteBuffer bytes) throws IOException {
    int actual = crc32c(bytes);
    if (actual != expected) {
      file.forgetVerified(block);
      checkLive(file, version);
      throw new CacheCorruptionException("Checksum mismatch in cache file " + file.path() + " for block " + block + " of " + version
          + ": expected CRC32C " + Integer.toHexString(expected) + ", found " + Integer.toHexString(actual), block);
    }
    file.markVerified(block);
  }

  /**
   * Writes one whole block of {@code version} at its offset in {@code dataFile} and returns its CRC32C.
   *
   * @throws CacheFileGoneException when the file was dropped before or during the write
   */
  public int write(Path dataFile, ObjectVersion version, int block, ByteBuffer bytes) throws IOException {
    int crc = crc32c(bytes.duplicate());
    int start = bytes.position();
    CacheFile file = files.get(dataFile);
    try {
      writeLive(file, version, block, bytes);
    } catch (ClosedChannelException closedUnderUs) {
      closed(file, closedUnderUs);
      bytes.position(start);
      writeLive(files.get(dataFile), version, block, bytes);
    }
    return crc;
  }

  /**
   * Fails with {@link CacheFileGoneException} when {@code file} is no longer at its live length, and
   * closes this JVM's handle of it so the unlinked file's space is freed.
   */
  private void checkLive(CacheFile file, ObjectVersion version) throws IOException {
    long size = file.channel().size();
    if (size != DataFileLayout.liveLength(version)) {
      files.discard(file);
      throw new CacheFileGoneException(file.path().toString(), "cache file of " + version + " was dropped: its length is " + size + ", not "
          + DataFileLayout.liveLength(version));
    }
  }

  /**
   * Writes into a live file only: checked before (a file dropped earlier is never written, so its
   * inode gets no new blocks outside the accounting) and after. A drop that raced the write (between
   * the check and the write) left this write's blocks in an unlinked inode that no accounting charges
   * and that stays allocated as long as any JVM holds the file open, which one that read it long ago
   * may: the writer truncates it again before it gives the file up. Only a dropped file is ever short
   * of or past its live length, so this never truncates a live one. The handle cannot be closed
   * between the write and the re-check (see {@link CacheFile#writing}), even by another writer of
   * this JVM that found the file gone.
   */
  private void writeLive(CacheFile file, ObjectVersion version, int block, ByteBuffer bytes) throws IOException {
    long live = DataFileLayout.liveLength(version);
    long size;
    Lock writing = file.writing();
    writing.lock();
    try {
      size = file.channel().size();
      if (size == live) {
        writeOnce(file, block, bytes);
        size = file.channel().size();
        if (size != live) {
          file.channel().truncate(0);
        }
      }
    } finally {
      writing.unlock();
    }
    if (size != live) {
      files.discard(file);
      throw new CacheFileGoneException(file.path().toString(), "cache file of " + version + " was dropped: its length is " + size + ", not " + live);
    }
  }

  private void writeOnce(CacheFile file, int block, ByteBuffer bytes) throws IOException {
    FileChannel channel = file.channel();
    long position = (long) block * blockSize;
    while (bytes.hasRemaining()) {
      position += channel.write(bytes, position);
    }
  }

  /**
   * Whether a block written with {@code crc32c}, its bytes {@code bytes} (not consumed), may be
   * committed: not when its CRC32C is that of zeros of its length but its bytes are not zeros (one
   * chance in 2^32). A hole reads as zeros and would match it, and readers trust a match; such a
   * block stays uncached, like one whose write failed. The bytes are looked at only in that case.
   */
  public boolean committable(int crc32c, ByteBuffer bytes) {
    int length = bytes.remaining();
    return committable(crc32c, length == blockSize ? zeroBlockCrc : zeroCrc32c(length), bytes);
  }

  static boolean committable(int crc32c, int zerosCrc32c, ByteBuffer bytes) {
    if (crc32c != zerosCrc32c) {
      return true;
    }
    for (int i = bytes.position(); i < bytes.limit(); i++) {
      if (bytes.get(i) != 0) {
        return false;
      }
    }
    return true;
  }

  /** The CRC32C of {@code length} zeros. */
  public static int zeroCrc32c(int length) {
    CRC32C crc = new CRC32C();
    byte[] zeros = new byte[Math.min(length, 64 * 1024)];
    for (int left = length; left > 0; left -= zeros.length) {
      crc.update(zeros, 0, Math.min(left, zeros.length));
    }
    return (int) crc.getValue();
  }

  public static int crc32c(ByteBuffer bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  private void readFully(CacheFile file, long position, ByteBuffer dst, ObjectVersion version) throws IOException {
    FileChannel channel = file.channel();
    long at = position;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        // a live file is longer than any block: it was truncated, i.e. dropped
        checkLive(file, version);
        throw new CacheFileGoneException(file.path().toString(), "cache file of " + version + " ends at " + at);
      }
      at += n;
    }
  }

  @Override
  public void close() {
    files.close();
  }

}
