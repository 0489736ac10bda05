package io.rubix.core.metadata;

import io.rubix.core.metadata.journal.MetadataJournal;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's own work, asked by nobody's read: the start from the journal ({@link #recover}) and
 * the sweeps that drop versions nobody read for {@code rubix.cache.expire.after.idle}
 * ({@link #expireIdle}, every {@link IdleExpiry#sweepInterval} once {@link #startIdleSweeps}).
 */
final class Housekeeping {
  private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);

  private final ServiceState state;
  private final MetadataJournal journal;

  Housekeeping(ServiceState state, MetadataJournal journal) {
    this.state = state;
    this.journal = journal;
  }

  /**
   * Starts from what the journal recovers. Never throws: a journal that fails as a whole leaves the
   * service empty, and files recovery could not delete stay charged to their disk (not evictable), so
   * the cap bounds what is really on disk after a restart.
   */
  void recover() {
    MetadataJournal.Recovery recovery;
    try {
      recovery = journal.recover(state.layout.roots(), state.blockSize);
      recovery = new MetadataJournal.Recovery(state.files.live(recovery.objects()), recovery.leftovers(), recovery.problems());
    } catch (RuntimeException e) {
      LOG.warn("Could not recover cache metadata from {}; starting empty", state.layout.roots(), e);
      recovery = new MetadataJournal.Recovery(List.of(), List.of(), 1);
    }
    List<CachedObject> evicted = new ArrayList<>();
    long recoveredAt = state.nanoClock.getAsLong();
    state.lock.lock();
    try {
      JournalRecovery.Outcome outcome = new JournalRecovery(state.objects, state.space, state.rules, state.leases, state.idleExpiry,
          state.blockSize, state.maxObjects).restore(recovery, recoveredAt, evicted);
      state.recoveredBlocks = outcome.blocks();
      state.expirations += outcome.expired();
      state.recoveryProblems += outcome.problems();
      LOG.info("Recovered {} cached objects with {} blocks from {}; {} expired unread, {} entries dropped or unreadable, {} undeletable files",
          state.objects.size(), outcome.blocks(), state.layout.roots(), outcome.expired(), state.recoveryProblems, recovery.leftovers().size());
    } finally {
      state.lock.unlock();
    }
    state.deleteFiles(evicted);
  }

  /** See {@link InProcessMetadataService#expireIdle}. */
  int expireIdle() {
    IdleExpiry idleExpiry = state.idleExpiry;
    if (!idleExpiry.enabled()) {
      return 0;
    }
    List<CachedObject> expired = new ArrayList<>();
    List<CachedObject> used = new ArrayList<>();
    List<Long> usedAt = new ArrayList<>();
    long now = idleExpiry.nowMillis();
    state.lock.lock();
    try {
      state.expireLeases();
      for (CachedObject object : state.objects.all()) {
        if (object.creating || object.pinned()) {
          continue;
        }
        if (idleExpiry.expired(object.lastUsedMillis, now)) {
          expired.add(object);
        } else if (object.useUnsaved) {
          object.useUnsaved = false;
          used.add(object);
          usedAt.add(object.lastUsedMillis);
        }
      }
      for (CachedObject object : expired) {
        state.objects.drop(object);
        state.expirations++;
      }
    } finally {
      state.lock.unlock();
    }
    for (int i = 0; i < used.size(); i++) {
      state.files.journalUsed(used.get(i), usedAt.get(i));
    }
    state.deleteFiles(expired);
    if (!expired.isEmpty()) {
      LOG.info("Expired {} object versions unread for {}", expired.size(), idleExpiry.idle());
    }
    return expired.size();
  }

  /** Runs {@link #expireIdle} every {@link IdleExpiry#sweepInterval} until the expiry closes, when expiry is on. */
  void startIdleSweeps() {
    state.idleExpiry.start(() -> {
      try {
        expireIdle();
      } catch (RuntimeException e) {
        LOG.warn("Idle expiry sweep failed; the next one tries again", e);
      }
    }, "rubix-idle-expiry");
  }
}
