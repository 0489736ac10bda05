package io.rubix.core.metadata.eviction;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * The victims W-TinyLFU picks on one disk ({@code rubix.cache.eviction.policy=tinylfu}): the window,
 * probation and protected {@link Segments}, and candidates against residents compared by
 * recent read frequency ({@link AccessFrequencies}). The ledger counts the space; this class only
 * chooses. Called under the metadata service's lock, as the ledger is.
 */
final class WindowedVictims<R extends Resident> {
  private final AccessFrequencies frequencies;

  WindowedVictims(AccessFrequencies frequencies) {
    this.frequencies = requireNonNull(frequencies, "frequencies is null");
  }

  /**
   * W-TinyLFU's choice, as Caffeine makes it. The window keeps the newest objects up to its capacity,
   * the growth of a requester in it included (a new object starts in it); the oldest beyond that move
   * on to probation and become candidates, as does a requester past the window, which must win its
   * room. While room is still needed, the first candidate is compared with the least recently used
   * object of probation (then of protected): the one read less often recently is evicted, the resident
   * on a tie, and the next candidate is compared with the next resident; without candidates, residents
   * are evicted in order; without residents, candidates and then the window's objects, oldest first. A
   * requester that loses is refused ({@link Eviction#refused}), and a losing candidate being fetched
   * into stays where it is. {@code usedBytes}: the disk's use, less what the caller counts as freed already;
   * {@code freeable}: what evicting an object frees now (the ledger's count).
   */
  Eviction<R> victims(Segments<R> disk, long usedBytes, R requester, long length, Collection<R> evicting, ToLongFunction<R> freeable) {
    boolean inWindow = requester != null && requester.segment() == Segment.WINDOW;
    long windowAfter = disk.bytes(Segment.WINDOW) + (inWindow ? length : 0);
    List<R> leaving = new ArrayList<>();
    for (Iterator<R> oldest = disk.objects(Segment.WINDOW); windowAfter > disk.windowCapacity() && oldest.hasNext(); ) {
      R next = oldest.next();
      leaving.add(next);
      windowAfter -= next == requester ? next.chargedBytes() + length : next.chargedBytes();
    }
    for (R next : leaving) {
      disk.move(next, Segment.PROBATION);
    }
    if (inWindow && requester.segment() == Segment.WINDOW && windowAfter > disk.windowCapacity()) {
      // a new object (not in the window yet) larger than the window's room: it starts past it
      requester.segment(Segment.PROBATION);
    }
    disk.demoteProtectedOverflow();
    Deque<R> candidates = new ArrayDeque<>(leaving);
    if (requester != null && requester.segment() != Segment.WINDOW && !candidates.contains(requester)) {
      candidates.add(requester);
    }
    Set<R> taken = new LinkedHashSet<>();
    long freed = 0;
    Iterator<R> residents = disk.pastWindow();
    Iterator<R> window = disk.objects(Segment.WINDOW);
    R resident = nextResident(residents, requester, candidates, taken, evicting);
    while (usedBytes - freed + length > disk.capacityBytes()) {
      R candidate = candidates.pollFirst();
      R evict;
      if (resident == null) {
        evict = candidate != null && candidate != requester ? candidate : window.hasNext() ? window.next() : null;
        if (evict == null) {
          return Eviction.noRoom();
        }
      } else if (candidate == null || frequencies.admits(candidate, resident)) {
        evict = resident;
        resident = nextResident(residents, requester, candidates, taken, evicting);
      } else if (candidate == requester) {
        return Eviction.refused();
      } else {
        evict = candidate;
      }
      if (Eviction.evictable(evict, requester) && !evicting.contains(evict) && taken.add(evict)) {
        freed += freeable.applyAsLong(evict);
      }
    }
    return new Eviction<>(List.copyOf(taken), false);
  }

  private static <R extends Resident> R nextResident(Iterator<R> residents, R requester, Collection<R> candidates, Set<R> taken,
      Collection<R> evicting) {
    while (residents.hasNext()) {
      R next = residents.next();
      if (Eviction.evictable(next, requester) && !candidates.contains(next) && !taken.contains(next) && !evicting.contains(next)) {
        return next;
      }
    }
    return null;
  }
}
