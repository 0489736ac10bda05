package io.rubix.core.read.fetch;

import io.rubix.core.read.session.ArrivingBytes;
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

  /**
   * Announces that blocks {@code [first, end)} of {@code version} are being fetched by this JVM, arriving
   * in {@code run}; returns the run's registration, through which alone it publishes and finishes them.
   * A block can be registered again while a run still has it (its object was dropped and the block
   * granted anew): later lookups find the newer run, and each run completes and removes only its own
   * entries, so no reader is left waiting on a future nobody completes.
   */
  Registration register(ObjectVersion version, int first, int end, ArrivingBytes run) {
    Entry[] entries = new Entry[end - first];
    for (int b = first; b < end; b++) {
      Entry entry = new Entry(new CompletableFuture<>(), run);
      entries[b - first] = entry;
      fetching.put(new Key(version, b), entry);
    }
    return new Registration(version, first, entries);
  }

  /** The entries one run registered. */
  final class Registration {
    private final ObjectVersion version;
    private final int first;
    private final Entry[] entries;

    private Registration(ObjectVersion version, int first, Entry[] entries) {
      this.version = version;
      this.first = first;
      this.entries = entries;
    }

    /** Hands the fetched bytes of the run's blocks (consecutive, {@code blockSize} each but the last) to its waiting readers. */
    void publish(byte[] bytes, int blockSize) {
      for (int i = 0, offset = 0; i < entries.length && offset < bytes.length; i++, offset += blockSize) {
        entries[i].fetched().complete(ByteBuffer.wrap(bytes, offset, Math.min(blockSize, bytes.length - offset)).slice().asReadOnlyBuffer());
      }
    }

    /**
     * Ends the run's entries (those of a newer run of the same blocks stay); readers still waiting on
     * them see {@code failure}, or, when there is none but the run never published, that it ended unpublished.
     */
    void finish(Throwable failure) {
      for (int i = 0; i < entries.length; i++) {
        Entry entry = entries[i];
        fetching.remove(new Key(version, first + i), entry);
        if (!entry.fetched().isDone()) {
          entry.fetched().completeExceptionally(failure != null ? failure
              : new java.io.IOException("Fetch of block " + (first + i) + " of " + version.path() + " ended before its bytes were published"));
        }
      }
    }
  }

  /**
   * Forgets the blocks being fetched of every version of {@code path} and of the paths under it: later
   * lookups do not find them (a version known by path and length comes back with the same key when the
   * path is written again). The fetches go on; readers that already took an entry keep it, and each run
   * still removes only its own entries.
   */
  void forget(String path) {
    fetching.keySet().removeIf(key -> key.version().isAtOrUnder(path));
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
