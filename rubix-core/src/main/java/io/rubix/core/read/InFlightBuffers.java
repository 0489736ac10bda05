package io.rubix.core.read;

import io.rubix.spi.ObjectVersion;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Blocks this JVM is fetching, by object version and block index. A reader that needs such a block
 * takes its bytes from the fetch's buffer as soon as the source read completes, instead of waiting
 * for the cache write and commit and then reading the bytes back from the cache file; an owner sending
 * blocks to a peer takes them even earlier, as they arrive ({@link ArrivingBytes}). Entries live
 * from just before the fetch is queued until its blocks are committed (or the fetch fails).
 *
 * <p>Ownership: one per {@link SourceFetches}, which alone creates the {@link GrantedRun}s that register
 * and finish entries (once each); everyone else only looks entries up. Thread-safe.
 */
final class InFlightBuffers {
  private record Key(ObjectVersion version, int block) {}

  /** A block's bytes once its run is read, and its run's bytes as they arrive. */
  private record Entry(CompletableFuture<ByteBuffer> fetched, ArrivingBytes run) {}

  private final ConcurrentHashMap<Key, Entry> fetching = new ConcurrentHashMap<>();

  /** Announces that blocks {@code [first, end)} of {@code version} are being fetched by this JVM, arriving in {@code run}. */
  void register(ObjectVersion version, int first, int end, ArrivingBytes run) {
    for (int b = first; b < end; b++) {
      fetching.put(new Key(version, b), new Entry(new CompletableFuture<>(), run));
    }
  }

  /** Hands the fetched bytes of blocks {@code [first, ...)} (consecutive, {@code blockSize} each but the last) to waiting readers. */
  void publish(ObjectVersion version, int first, byte[] bytes, int blockSize) {
    for (int offset = 0, b = first; offset < bytes.length; offset += blockSize, b++) {
      Entry entry = fetching.get(new Key(version, b));
      if (entry != null) {
        entry.fetched().complete(ByteBuffer.wrap(bytes, offset, Math.min(blockSize, bytes.length - offset)).slice().asReadOnlyBuffer());
      }
    }
  }

  /** Ends the entries of blocks {@code [first, end)}; readers still waiting on a failed fetch see {@code failure}. */
  void finish(ObjectVersion version, int first, int end, Throwable failure) {
    for (int b = first; b < end; b++) {
      Entry entry = fetching.remove(new Key(version, b));
      if (entry != null && failure != null) {
        entry.fetched().completeExceptionally(failure);
      }
    }
  }

  /** The pending or fetched bytes of {@code block}, or null when this JVM is not fetching it. */
  CompletableFuture<ByteBuffer> get(ObjectVersion version, int block) {
    Entry entry = fetching.get(new Key(version, block));
    return entry == null ? null : entry.fetched();
  }

  /** The bytes of the run holding {@code block} as they arrive, or null when this JVM is not fetching it. */
  ArrivingBytes arriving(ObjectVersion version, int block) {
    Entry entry = fetching.get(new Key(version, block));
    return entry == null ? null : entry.run();
  }
}
