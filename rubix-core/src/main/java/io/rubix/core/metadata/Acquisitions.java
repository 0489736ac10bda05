package io.rubix.core.metadata;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link InProcessMetadataService#acquire}: grants what it can of a block range to one fetcher, and
 * creates a new object's journal and data file after the lock. A grant is journaled as a charge
 * before it is answered, so a restarted service still charges the blocks its grantee may write.
 */
final class Acquisitions {
  private static final Logger LOG = LoggerFactory.getLogger(Acquisitions.class);
  /** Longest an acquire waits for another caller to create the files of the object it asks for. */
  private static final long CREATE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final ServiceState state;

  Acquisitions(ServiceState state) {
    this.state = state;
  }

  /** Grants what it can of {@code [firstBlock, endBlock)}. */
  BlockRange grant(ObjectVersion version, int firstBlock, int endBlock) throws IOException {
    state.checkRange(version, firstBlock, endBlock);
    List<CachedObject> evicted = new ArrayList<>();
    CachedObject created = null;
    CachedObject grantedObject = null;
    int[] charged = null;
    BlockRange range;
    try {
      state.lock.lock();
      try {
        state.expireLeases();
        CachedObject object = state.touch(version, firstBlock);
        if (object == null) {
          object = state.grants.start(version, firstBlock, evicted);
          if (object == null) {
            return BlockRanges.denied(version, firstBlock, endBlock);
          }
          created = object;
        } else if (object.creating && (!awaitCreated(object) || state.objects.get(version) != object)) {
          return BlockRanges.denied(version, firstBlock, endBlock);
        } else {
          state.space.accessed(version, firstBlock, object);
        }
        Lease lease = state.leases.create(object, state.nanoClock.getAsLong());
        int[] newlyCharged = state.grants.grant(object, lease, firstBlock, endBlock, evicted);
        if (newlyCharged.length > 0) {
          grantedObject = object;
          charged = newlyCharged;
        }
        if (!lease.blocks.isEmpty()) {
          state.leases.add(lease);
        } else if (object.charged.isEmpty() && object.inFlight.isEmpty()) {
          state.objects.forget(object);
          evicted.add(object);
          if (object == created) {
            // nothing was granted: no files to create
            object.creating = false;
            state.inFlightCondition.signalAll();
            created = null;
          }
        }
        range = BlockRanges.describe(version, object, firstBlock, endBlock, lease);
      } finally {
        state.lock.unlock();
      }
      if (created != null) {
        createFiles(created);
      }
      if (charged != null) {
        // journaled (outside the lock, after the object's journal exists) before the grant is answered:
        // after a crash, the grantee may still write these blocks
        state.files.journalCharged(grantedObject, charged);
      }
      return range;
    } finally {
      state.deleteFiles(evicted);
    }
  }

  /**
   * Creates the journal and data file of {@code object}, outside the lock (a slow disk delays only
   * the readers of that object, which wait in {@link #awaitCreated}). A cache that cannot create its
   * files is broken: the object is dropped and the caller counts it, falls back to the source, or
   * fails the read in strict mode.
   */
  private void createFiles(CachedObject object) throws IOException {
    try {
      state.files.create(object);
    } catch (IOException | RuntimeException e) {
      boolean current;
      state.lock.lock();
      try {
        object.creating = false;
        current = state.objects.get(object.version) == object;
        if (current) {
          state.objects.drop(object);
        }
        state.inFlightCondition.signalAll();
      } finally {
        state.lock.unlock();
      }
      state.deleteFiles(List.of(object));
      if (!current) {
        // invalidated or cleared meanwhile, and its files with it: not a broken cache; the caller's writes find no file
        LOG.debug("{} was dropped while its cache file {} was created", object.version, object.dataFile, e);
        return;
      }
      throw new IOException("Cannot create cache file " + object.dataFile + " for " + object.version, e);
    }
    boolean droppedMeanwhile;
    state.lock.lock();
    try {
      object.creating = false;
      droppedMeanwhile = state.objects.get(object.version) != object;
      state.inFlightCondition.signalAll();
    } finally {
      state.lock.unlock();
    }
    if (droppedMeanwhile) {
      // invalidated or cleared while its files were made: its deletion may have run before they existed
      state.deleteFiles(List.of(object));
    }
  }

  /** Waits (briefly: one file creation) until another caller has created {@code object}'s files; false if it did not in time. */
  @GuardedBy("state.lock")
  private boolean awaitCreated(CachedObject object) throws IOException {
    long remaining = CREATE_WAIT_NANOS;
    try {
      while (object.creating && remaining > 0) {
        remaining = state.inFlightCondition.awaitNanos(remaining);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting for the cache file of " + object.version);
    }
    return !object.creating;
  }
}
