package io.rubix.core.metadata;

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
 * probation and protected segments of {@link DiskSpace}, and candidates against residents compared by
 * recent read frequency ({@link AccessFrequencies}). {@link SpaceLedger} counts the space; this class only
 * chooses. Called under the metadata service's lock, as the ledger is.
 */
final class WindowedVictims {
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
   * requester that loses is refused ({@link Eviction#rejected}), and a losing candidate being fetched
   * into stays where it is. {@code freeable}: what evicting an object frees now ({@link SpaceLedger}'s count).
   */
  Eviction victims(DiskSpace disk, CachedObject requester, long length, long freedBefore, Collection<CachedObject> evicting,
      ToLongFunction<CachedObject> freeable) {
    boolean inWindow = requester != null && requester.segment == Segment.WINDOW;
    long windowAfter = disk.bytes(Segment.WINDOW) + (inWindow ? length : 0);
    List<CachedObject> leaving = new ArrayList<>();
    for (Iterator<CachedObject> oldest = disk.objects(Segment.WINDOW); windowAfter > disk.windowCapacity() && oldest.hasNext(); ) {
      CachedObject next = oldest.next();
      leaving.add(next);
      windowAfter -= next == requester ? next.chargedBytes + length : next.chargedBytes;
    }
    for (CachedObject next : leaving) {
      disk.move(next, Segment.PROBATION);
    }
    if (inWindow && requester.segment == Segment.WINDOW && windowAfter > disk.windowCapacity()) {
      // a new object (not in the window yet) larger than the window's room: it starts past it
      requester.segment = Segment.PROBATION;
    }
    disk.demoteProtectedOverflow();
    Deque<CachedObject> candidates = new ArrayDeque<>(leaving);
    if (requester != null && requester.segment != Segment.WINDOW && !candidates.contains(requester)) {
      candidates.add(requester);
    }
    Set<CachedObject> taken = new LinkedHashSet<>();
    long freed = freedBefore;
    Iterator<CachedObject> residents = disk.pastWindow();
    Iterator<CachedObject> window = disk.objects(Segment.WINDOW);
    CachedObject resident = nextResident(residents, requester, candidates, taken, evicting);
    while (disk.usedBytes - freed + length > disk.capacityBytes) {
      CachedObject candidate = candidates.pollFirst();
      CachedObject evict;
      if (resident == null) {
        evict = candidate != null && candidate != requester ? candidate : window.hasNext() ? window.next() : null;
        if (evict == null) {
          return Eviction.NO_ROOM;
        }
      } else if (candidate == null || frequencies.admits(candidate, resident)) {
        evict = resident;
        resident = nextResident(residents, requester, candidates, taken, evicting);
      } else if (candidate == requester) {
        return Eviction.REJECTED;
      } else {
        evict = candidate;
      }
      if (Eviction.evictable(evict, requester) && !evicting.contains(evict) && taken.add(evict)) {
        freed += freeable.applyAsLong(evict);
      }
    }
    return new Eviction(List.copyOf(taken), false);
  }

  private static CachedObject nextResident(Iterator<CachedObject> residents, CachedObject requester, Collection<CachedObject> candidates,
      Set<CachedObject> taken, Collection<CachedObject> evicting) {
    while (residents.hasNext()) {
      CachedObject next = residents.next();
      if (Eviction.evictable(next, requester) && !candidates.contains(next) && !taken.contains(next) && !evicting.contains(next)) {
        return next;
      }
    }
    return null;
  }
}
