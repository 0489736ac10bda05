package io.rubix.core.read.fetch;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.ArrivingBytes;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks {@code [first, end)} granted under one lease and owned by one fetch. Creating it registers
 * the blocks in this JVM's {@link InFlightBuffers}; it ends exactly once, by {@link #settle} (the
 * writer commits what it wrote and gives back the rest) or by {@link #close} (a fetch that failed,
 * was skipped or never reached the writer gives every block back). One owner at a time: whoever
 * holds a run either ends it or hands it on, so try-with-resources on every path ends every grant
 * and no block stays in flight until its lease expires.
 */
public final class GrantedRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GrantedRun.class);

  private final CacheMetadataService service;
  private final ObjectVersion version;
  private final long leaseId;
  private final Path dataFile;
  private final int first;
  private final int end;
  private final ArrivingBytes arriving;
  private final InFlightBuffers.Registration registration;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile boolean writing;
  /** Written blocks (relative to {@code first}) that {@link #settle} gives back instead of committing; only the run's owner touches it. */
  private final BitSet withheld = new BitSet();

  GrantedRun(CacheMetadataService service, InFlightBuffers inFlight, ObjectVersion version, long leaseId, Path dataFile, int first, int end) {
    this.service = requireNonNull(service, "service is null");
    requireNonNull(inFlight, "inFlight is null");
    this.version = requireNonNull(version, "version is null");
    this.dataFile = requireNonNull(dataFile, "dataFile is null");
    if (first < 0 || end <= first) {
      throw new IllegalArgumentException("Invalid block run [" + first + ", " + end + ") of " + version.path());
    }
    this.leaseId = leaseId;
    this.first = first;
    this.end = end;
    this.arriving = new ArrivingBytes(first);
    this.registration = inFlight.register(version, first, end, arriving);
  }

  public int first() {
    return first;
  }

  public int end() {
    return end;
  }

  Path dataFile() {
    return dataFile;
  }

  /** The run's bytes as its fetch reads them. */
  ArrivingBytes arriving() {
    return arriving;
  }

  /** Hands the fetched bytes of the run's blocks to readers of this JVM waiting for them. */
  void publish(byte[] bytes, int blockSize) {
    arriving.complete(bytes);
    registration.publish(bytes, blockSize);
  }

  /** Says that bytes of the run may reach the data file from now on; an abort then says the blocks may be written. */
  void writing() {
    writing = true;
  }

  /** Keeps written block {@code block} out of the commit of {@link #settle}, which gives it back as written, like a block whose write failed. */
  void withhold(int block) {
    if (block < first || block >= end) {
      throw new IllegalArgumentException("Block " + block + " is not in [" + first + ", " + end + ") of " + version.path());
    }
    withheld.set(block - first);
  }

  /**
   * Ends the run after a write: readers of this JVM stop taking its blocks from memory, the first
   * {@code written} blocks are committed with {@code crc32c} (but those {@linkplain #withhold withheld})
   * and the others given back.
   *
   * @param restWritten whether bytes of the blocks given back may have reached the data file
   * @throws IOException when the commit fails (the written blocks then stay granted until the lease expires)
   */
  void settle(int written, int[] crc32c, boolean restWritten) throws IOException {
    if (!ended.compareAndSet(false, true)) {
      throw new IllegalStateException("Blocks [" + first + ", " + end + ") of " + version.path() + " already ended");
    }
    // readers of this JVM stop taking these blocks from memory before the commit makes them visible in the cache
    registration.finish(null);
    abort(first + written, end, restWritten);
    int[] blocks = new int[written];
    int[] crcs = new int[written];
    int committed = 0;
    for (int i = 0; i < written; i++) {
      if (withheld.get(i)) {
        abort(first + i, first + i + 1, true);
      } else {
        blocks[committed] = first + i;
        crcs[committed++] = crc32c[i];
      }
    }
    if (committed > 0) {
      service.commit(leaseId, Arrays.copyOf(blocks, committed), Arrays.copyOf(crcs, committed));
    }
  }

  /** Gives back every block of the run unless it was settled; readers of this JVM waiting for them see the fetch failed. */
  @Override
  public void close() {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    IOException failure = new IOException("Fetch of blocks [" + first + ", " + end + ") of " + version.path() + " did not complete");
    arriving.fail(failure);
    registration.finish(failure);
    abort(first, end, writing);
  }

  private void abort(int from, int to, boolean written) {
    if (leaseId == 0 || from >= to) {
      return;
    }
    int[] blocks = new int[to - from];
    Arrays.setAll(blocks, i -> from + i);
    try {
      service.abort(leaseId, blocks, written);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not abort lease {} blocks [{}, {}) of {}", leaseId, from, to, version.path(), e);
    }
  }

  @Override
  public String toString() {
    return "GrantedRun[" + version.path() + " blocks [" + first + ", " + end + ") lease " + leaseId + "]";
  }
}
