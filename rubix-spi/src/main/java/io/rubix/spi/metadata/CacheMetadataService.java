package io.rubix.spi.metadata;

import io.rubix.spi.ObjectVersion;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Which blocks of which object versions are cached on this node, who is fetching what, and how much
 * space the cache may use. One instance serves every reader on a node: in-process ("embedded mode")
 * or in the BookKeeper daemon over Thrift.
 *
 * <h2>Protocol</h2>
 * A reader asks {@link #status} for a block range; blocks reported {@link BlockState#CACHED} are read
 * from {@link BlockRange#dataFile()} and checked against their CRC32C. For missing blocks it calls
 * {@link #acquire}: blocks {@link BlockState#GRANTED} to it have space reserved and must be fetched
 * from the source, written into the data file at {@code block * blockSize}, and then
 * {@link #commit committed} with their CRC32Cs, or {@link #abort aborted}. Only a commit publishes a
 * block (ordered writes: data first, then metadata). Blocks {@link BlockState#IN_FLIGHT} are being
 * fetched by another reader: {@link #awaitInFlight} waits for them. Blocks {@link BlockState#DENIED}
 * are read from the source without caching.
 *
 * <h2>Contract</h2>
 * Implementations are thread-safe. Every method may throw {@link IOException} when the service is
 * unreachable or failing; callers treat that as a cache miss and read the source. Block indexes
 * outside the object, and ranges of more than {@link #MAX_BLOCKS_PER_CALL} blocks, are rejected with
 * {@link IllegalArgumentException}. A granted lease that is
 * neither committed nor aborted expires after a timeout, so a crashed reader never blocks others.
 */
public interface CacheMetadataService extends Closeable {
  /** The most blocks one {@code status}, {@code acquire} or {@code awaitInFlight} call may name. */
  int MAX_BLOCKS_PER_CALL = 4096;

  /** The block size all readers of this service must use, in bytes. */
  int blockSize();

  /**
   * The state of blocks {@code [firstBlock, endBlock)}; never grants anything. Marks the version used.
   * A service that keeps statistics counts the cached ones as read.
   */
  BlockRange status(ObjectVersion version, int firstBlock, int endBlock) throws IOException;

  /**
   * Like {@link #status(ObjectVersion, int, int)}, for a caller that reads from block {@code readBlock}
   * now, asks about the others around it to spare itself later calls, and {@linkplain #reportReads
   * reports} the blocks it reads from the cache: a service that keeps statistics counts none of the
   * answer as read, and an eviction policy that counts reads counts one at {@code readBlock}. This
   * default, for services that keep neither, answers the range.
   *
   * @throws IllegalArgumentException also when {@code readBlock} is not in {@code [firstBlock, endBlock)}
   */
  default BlockRange status(ObjectVersion version, int firstBlock, int endBlock, int readBlock) throws IOException {
    checkReadBlock(firstBlock, endBlock, readBlock);
    return status(version, firstBlock, endBlock);
  }

  /** Fails unless {@code readBlock} is in {@code [firstBlock, endBlock)}. */
  static void checkReadBlock(int firstBlock, int endBlock, int readBlock) {
    if (readBlock < firstBlock || readBlock >= endBlock) {
      throw new IllegalArgumentException("readBlock " + readBlock + " is outside [" + firstBlock + ", " + endBlock + ")");
    }
  }

  /**
   * Tells a service that keeps statistics that its caller read {@code blocks} of {@code version} from
   * the cache (blocks it asked about with {@link #status(ObjectVersion, int, int, int)}). At most {@link #MAX_BLOCKS_PER_CALL}
   * blocks, each inside the object. Statistics only: nothing else depends on it, and this default
   * ignores it.
   */
  default void reportReads(ObjectVersion version, int[] blocks) throws IOException {}

  /**
   * Like {@link #status}, but grants the caller every missing block it can reserve space for. The
   * returned range's {@link BlockRange#leaseId()} identifies the grant.
   */
  BlockRange acquire(ObjectVersion version, int firstBlock, int endBlock) throws IOException;

  /**
   * Publishes blocks granted under {@code leaseId} whose bytes are written. Blocks the lease no
   * longer holds (expired, invalidated) are ignored; returns how many blocks were published.
   */
  int commit(long leaseId, int[] blocks, int[] crc32c) throws IOException;

  /**
   * Gives back blocks granted under {@code leaseId} without publishing them. {@code written} tells
   * whether bytes may have reached the data file (their space then stays charged until the file is
   * evicted).
   */
  void abort(long leaseId, int[] blocks, boolean written) throws IOException;

  /**
   * Waits up to {@code timeoutMillis} until no block of {@code [firstBlock, endBlock)} is in flight,
   * and returns their state then.
   */
  BlockRange awaitInFlight(ObjectVersion version, int firstBlock, int endBlock, long timeoutMillis) throws IOException, InterruptedException;

  /** Unpublishes one block whose bytes failed verification; it will be fetched again. */
  void reportCorrupt(ObjectVersion version, int block) throws IOException;

  /** Unpublishes and deletes everything cached for {@code version}. */
  void invalidate(ObjectVersion version) throws IOException;

  /**
   * Unpublishes and deletes every cached version of {@code path} and of every path under it ({@code path}
   * as a directory: {@code path + "/..."}); returns how many were dropped.
   */
  int invalidatePath(String path) throws IOException;

  /**
   * The length of the one cached version of {@code path} known by its path and length alone
   * ({@link ObjectVersion#byPathAndLength()}: Iceberg's files, paths with {@code immutable} freshness), if
   * at least one of its blocks is cached; -1 when there is no such
   * version, or more than one. Lets such a reader open a file it knows only by its path without asking
   * the store for the length.
   */
  long immutableLength(String path) throws IOException;

  /** Space used and reserved on each cache disk. */
  CacheUsage usage() throws IOException;

  /**
   * Whether the service runs in the caller's JVM, so that a call costs no round trip (readers then
   * report their reads on their own thread). This default, for services elsewhere, says no.
   */
  default boolean inProcess() {
    return false;
  }

  /**
   * Tells {@code listener} the data file of each object the service drops, before the file is deleted,
   * so the caller can close its handles to it. This default, for services that cannot tell (another
   * process drops its objects unseen), never calls it.
   */
  default void addEvictionListener(Consumer<Path> listener) {}
}
