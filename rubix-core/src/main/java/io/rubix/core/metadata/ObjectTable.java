package io.rubix.core.metadata;

import io.rubix.core.insight.CacheInsight;
import io.rubix.core.metadata.eviction.Eviction;
import io.rubix.spi.ObjectVersion;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The object versions a metadata service tracks, and the evictions that make room among them: which
 * objects the {@link SpaceLedger} picks go, and a dropped object's leases end with it. Counts the
 * evictions and the grants the eviction policy refused. Guarded by the owning service's lock, like
 * {@link LeaseTable}: it never locks and names no lock, and Error Prone checks the service's
 * {@code @GuardedBy("lock")} field through which it is reached. The files of the objects it drops
 * are the caller's to delete, after unlocking.
 */
final class ObjectTable {
  private final Map<ObjectVersion, CachedObject> objects = new HashMap<>();
  /** The same objects by path, sorted: what {@link #atOrUnder} finds without a scan of them all. */
  private final NavigableMap<String, List<CachedObject>> byPath = new TreeMap<>();
  private final SpaceLedger space;
  private final LeaseTable leases;
  private final CacheInsight insight;
  /** Told, under the lock, that blocks left the in-flight state (those of a dropped object). */
  private final Runnable inFlightChanged;
  private long nextGeneration = 1;
  private long evictions;
  private long admissionRejections;

  ObjectTable(SpaceLedger space, LeaseTable leases, CacheInsight insight, Runnable inFlightChanged) {
    this.space = space;
    this.leases = leases;
    this.insight = insight;
    this.inFlightChanged = inFlightChanged;
  }

  /** The live metadata of {@code version}, or null. */
  CachedObject get(ObjectVersion version) {
    return objects.get(version);
  }

  boolean contains(ObjectVersion version) {
    return objects.containsKey(version);
  }

  void add(CachedObject object) {
    CachedObject replaced = objects.put(object.version, object);
    if (replaced != null) {
      byPath.get(replaced.version.path()).remove(replaced);
    }
    byPath.computeIfAbsent(object.version.path(), path -> new ArrayList<>(1)).add(object);
  }

  /** The live objects whose path is {@code path}; the caller must not change the list. */
  List<CachedObject> at(String path) {
    return byPath.getOrDefault(path, List.of());
  }

  /**
   * The live objects whose path is {@code path} or lies under it ({@code path} as a directory: a path
   * that continues it after a {@code /}); not {@code path2}, a sibling that only starts with its name.
   */
  List<CachedObject> atOrUnder(String path) {
    List<CachedObject> found = new ArrayList<>(byPath.getOrDefault(path, List.of()));
    String directory = path.endsWith("/") ? path : path + "/";
    // every path that starts with directory sorts at or after it and before directory's last character plus one
    String end = directory.substring(0, directory.length() - 1) + (char) ('/' + 1);
    for (List<CachedObject> under : byPath.subMap(directory, true, end, false).values()) {
      found.addAll(under);
    }
    return found;
  }

  int size() {
    return objects.size();
  }

  /** The live objects; a view, which dropping an object changes. */
  Collection<CachedObject> all() {
    return objects.values();
  }

  /** The generation of the next data file made ({@link DataFileLayout#dataFile}); taken by {@link #generationUsed}. */
  long nextGeneration() {
    return nextGeneration;
  }

  /** A data file of {@code generation} exists: later files get a later one. */
  void generationUsed(long generation) {
    nextGeneration = Math.max(nextGeneration, generation + 1);
  }

  /** Objects evicted to make room (for space, a quota or the most objects). */
  long evictions() {
    return evictions;
  }

  /** Grants the eviction policy refused ({@code tinylfu}). */
  long admissionRejections() {
    return admissionRejections;
  }

  /** Evicts the least recently used object nobody is fetching into, from {@code preferred} first; false when there is none. */
  boolean evictOneObject(DiskSpace preferred, List<CachedObject> evicted) {
    for (DiskSpace disk : space.disksFrom(preferred)) {
      for (Iterator<CachedObject> candidates = disk.objects(); candidates.hasNext(); ) {
        CachedObject candidate = candidates.next();
        if (!candidate.pinned()) {
          drop(candidate);
          evicted.add(candidate);
          evictions++;
          insight.evicted(candidate.version);
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Makes room for {@code length} more bytes of {@code requester} (null: of an object to create) on
   * {@code disk}, evicting the objects the eviction policy picks into {@code evicted}; false when
   * impossible, or when the policy refuses the requester (counted as an admission rejection).
   */
  boolean reserve(DiskSpace disk, CachedObject requester, long length, List<CachedObject> evicted) {
    RuleSpace rule = requester == null ? null : requester.rule;
    Eviction<CachedObject> forQuota = rule == null ? Eviction.none() : space.quotaVictims(requester, length, evicted);
    if (!forQuota.fits()) {
      rule.denials++;
      return false;
    }
    // the disk decides before anything is evicted for the quota: a grant it refuses evicts nothing
    Eviction<CachedObject> eviction = space.victims(disk, requester, length, evicted, forQuota.victims());
    if (!eviction.fits()) {
      if (eviction.rejected()) {
        admissionRejections++;
      }
      return false;
    }
    if (rule != null) {
      evictForQuota(forQuota, rule, evicted);
    }
    for (CachedObject victim : eviction.victims()) {
      drop(victim);
      evicted.add(victim);
      evictions++;
      insight.evicted(victim.version);
    }
    return true;
  }

  /** Evicts the objects {@code eviction} names to keep {@code rule} within its quota; false (counted) when they are not enough. */
  boolean evictForQuota(Eviction<CachedObject> eviction, RuleSpace rule, List<CachedObject> evicted) {
    if (!eviction.fits()) {
      rule.denials++;
      return false;
    }
    for (CachedObject victim : eviction.victims()) {
      drop(victim);
      evicted.add(victim);
      evictions++;
      rule.evictions++;
      insight.evicted(victim.version);
    }
    return true;
  }

  /**
   * Unpublishes everything of {@code object} and ends its leases; its file is deleted by the caller
   * after unlocking. The charge of the blocks its grantees (of this run, or of the previous one after
   * a restart) may still be writing is held until they are done: see {@link FencedWrites}.
   */
  void drop(CachedObject object) {
    List<Lease> ended = new ArrayList<>();
    for (Long leaseId : Set.copyOf(object.inFlight.values())) {
      Lease lease = leases.remove(leaseId);
      if (lease != null) {
        ended.add(lease);
      }
    }
    remove(object);
    space.forget(object, ended);
    object.published.clear();
    object.inFlight.clear();
    inFlightChanged.run();
  }

  /** Removes {@code object}, which holds no lease, from the metadata; its charge is given back once its files are truncated. */
  void forget(CachedObject object) {
    remove(object);
    space.forget(object, List.of());
  }

  /** Removes what {@code objects} holds for {@code object}'s version from both maps, so that they always hold the same objects. */
  private void remove(CachedObject object) {
    CachedObject removed = objects.remove(object.version);
    if (removed == null) {
      return;
    }
    List<CachedObject> atPath = byPath.get(removed.version.path());
    if (atPath != null && atPath.remove(removed) && atPath.isEmpty()) {
      byPath.remove(removed.version.path());
    }
  }
}
