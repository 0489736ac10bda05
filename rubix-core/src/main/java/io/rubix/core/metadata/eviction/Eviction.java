package io.rubix.core.metadata.eviction;

import java.util.List;

/**
 * What an eviction choice found (an {@link EvictionOrder}'s, or a quota's): the objects to evict (null when the bytes do not fit), and whether they do not fit because the eviction
 * policy refused the requester, not for want of space.
 */
public record Eviction<R extends Resident>(List<R> victims, boolean rejected) {
  /** The bytes do not fit, whatever is evicted. */
  public static <R extends Resident> Eviction<R> noRoom() {
    return new Eviction<>(null, false);
  }

  /** The bytes fit without evicting anything. */
  public static <R extends Resident> Eviction<R> none() {
    return new Eviction<>(List.of(), false);
  }

  /** The policy refused the requester. */
  public static <R extends Resident> Eviction<R> refused() {
    return new Eviction<>(null, true);
  }

  public boolean fits() {
    return victims != null;
  }

  /** Whether {@code object} may be evicted to make room for {@code requester}: not the requester, not pinned, holding space. */
  public static boolean evictable(Resident object, Resident requester) {
    return object != requester && !object.pinned() && object.chargedBytes() > 0;
  }
}
