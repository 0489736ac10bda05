package io.rubix.core.metadata.eviction;

import io.rubix.core.config.EvictionPolicy;
import io.rubix.spi.ObjectVersion;
import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * An eviction policy: in which segment a new object starts, what a read teaches the policy, and which
 * objects a disk evicts to make room. {@link LruOrder} evicts the least recently used; {@link
 * TinyLfuOrder} is W-TinyLFU (segmented disks, read frequencies, a window sized by a hill climber).
 * The metadata service's ledger counts the space; the order only chooses. Called under the metadata
 * service's lock, as the ledger is.
 *
 * @param <R> the objects ordered
 */
public interface EvictionOrder<R extends Resident> {
  /** The order {@code policy} ({@code rubix.cache.eviction.policy}) names. */
  static <R extends Resident> EvictionOrder<R> of(EvictionPolicy policy) {
    return switch (policy) {
      case LRU -> new LruOrder<>();
      case TINYLFU -> new TinyLfuOrder<>();
    };
  }

  /** Sizes a new disk's segments. */
  void sized(Segments<R> disk);

  /** The segment a new object starts in. */
  Segment firstSegment();

  /** Whether a read moves an object between segments ({@link Segments#touch}). */
  boolean segmented();

  /** The ledger now holds {@code objects} objects on all disks. */
  void objectsCached(int objects);

  /** A read of {@code version} starting at {@code block} (its cached {@code object}, or null). */
  void accessed(ObjectVersion version, int block, R object);

  /**
   * A reader read {@code bytes}, {@code hitBytes} of them from the cache, while {@code objects} objects
   * are cached; the policy may resize the segments of {@code disks}.
   */
  void read(long hitBytes, long bytes, int objects, List<Segments<R>> disks);

  /** Whether the policy adapts to the hit ratio reads get (then {@link #read} must be told of them). */
  boolean adaptive();

  /** The share of each disk's cap its window holds now; 0 without a window. */
  double windowShare();

  /**
   * The objects to evict from {@code disk} so that {@code length} more bytes fit its cap, where
   * {@code usedBytes} are used (what the caller counts as freed already taken off), never
   * {@code requester} (null for a new object) nor one of {@code evicting} (already chosen), counting
   * {@code freeable} of each victim as freed.
   */
  Eviction<R> victims(Segments<R> disk, long usedBytes, R requester, long length, Collection<R> evicting, ToLongFunction<R> freeable);
}
