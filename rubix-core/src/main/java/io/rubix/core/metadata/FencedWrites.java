package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The charge of blocks of dropped objects that a grantee may still be writing.
 *
 * <p>Dropping an object truncates its data file and unlinks it, but a grantee that checked the file
 * live just before lands its next write in the dropped inode, and the bytes stay there until it sees
 * the file gone and truncates it again (see {@code BlockStore}). Until then they are on disk, so the
 * charge of every block a lease held when its object was dropped is kept, as releasing, until that
 * lease ends for the block: a commit or an abort of it (the grantee's writes come before those), or
 * the lease's deadline. After a restart, the blocks charged but not published may be written by
 * grantees of the previous run, whose leases this run never knew: the service fences them as one
 * lease that lasts a lease timeout from recovery.
 *
 * <p>Not thread-safe: guarded by the owning service's lock. What it gives back goes through
 * {@link Release}, which knows whether the object's files are truncated yet. That lock is the
 * service's, which this class cannot name, so its fields carry no {@code @GuardedBy}: Error Prone
 * checks the lock where the service reaches its parts, through its {@code @GuardedBy("lock")}
 * fields.
 */
final class FencedWrites {
  /** Gives back {@code bytes} of the dropped {@code object}'s charge. */
  interface Release {
    void release(CachedObject object, long bytes);
  }

  private final Map<Long, Lease> fenced = new HashMap<>();
  private final Release release;

  FencedWrites(Release release) {
    this.release = requireNonNull(release, "release is null");
  }

  /**
   * Holds the charge of the blocks of {@code lease} (on an object being dropped) that are charged,
   * minus {@code alreadyHeld}, until the lease ends; returns the bytes held.
   */
  long fence(Lease lease, BitSet alreadyHeld) {
    lease.blocks.and(lease.object.charged);
    lease.blocks.andNot(alreadyHeld);
    long held = lease.object.chargeOf(lease.blocks);
    if (held > 0) {
      fenced.put(lease.id, lease);
    }
    return held;
  }

  /** The grantee of lease {@code leaseId} is done with {@code blocks} (it committed or aborted them): their charge is given back. */
  void end(long leaseId, int[] blocks) {
    Lease lease = fenced.get(leaseId);
    if (lease == null) {
      return;
    }
    BitSet ending = new BitSet();
    for (int block : blocks) {
      if (block >= 0) {
        ending.set(block);
      }
    }
    ending.and(lease.blocks);
    giveBack(lease, ending);
    if (lease.blocks.isEmpty()) {
      fenced.remove(leaseId);
    }
  }

  /** Gives back the charge of the fenced leases whose deadline passed at {@code nowNanos}. */
  void expire(long nowNanos) {
    Iterator<Lease> it = fenced.values().iterator();
    while (it.hasNext()) {
      Lease lease = it.next();
      if (nowNanos - lease.deadlineNanos >= 0) {
        it.remove();
        giveBack(lease, (BitSet) lease.blocks.clone());
      }
    }
  }

  private void giveBack(Lease lease, BitSet blocks) {
    long bytes = lease.object.chargeOf(blocks);
    lease.blocks.andNot(blocks);
    if (bytes > 0) {
      release.release(lease.object, bytes);
    }
  }
}
