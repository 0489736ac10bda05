package io.rubix.core.metadata;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a grantee ends its lease: {@link #commit} publishes the blocks whose bytes on disk match the
 * CRC32C claimed for them (checked and journaled outside the lock, then published in memory);
 * {@link #abort} gives blocks up, keeping them charged when bytes may have been written.
 */
final class Commits {
  private static final Logger LOG = LoggerFactory.getLogger(Commits.class);

  private final ServiceState state;

  Commits(ServiceState state) {
    this.state = state;
  }

  /** See {@link InProcessMetadataService#commit}. */
  int commit(long leaseId, int[] blocks, int[] crc32c) throws IOException {
    if (blocks.length != crc32c.length) {
      throw new IllegalArgumentException("blocks and crc32c differ in length: " + blocks.length + " vs " + crc32c.length);
    }
    Lease lease;
    state.lock.lock();
    try {
      lease = state.leases.get(leaseId);
      if (lease == null) {
        state.space.fencedDone(leaseId, blocks); // its object was dropped: the writer is done with these blocks
        return 0;
      }
    } finally {
      state.lock.unlock();
    }
    CachedObject object = lease.object;
    // a block outside the object cannot be held by the lease: it is skipped below
    boolean[] verified = state.files.verify(object, blocks, crc32c);
    // journaled before they are published in memory, outside the lock (a slow disk delays this writer only);
    // a block journaled but then not published (its lease expired meanwhile) holds verified bytes of the version
    state.files.journalVerified(object, blocks, crc32c, verified);
    state.lock.lock();
    try {
      if (state.leases.get(leaseId) != lease) {
        state.space.fencedDone(leaseId, blocks);
        return 0; // expired, or its object was dropped, while the bytes were checked
      }
      int published = 0;
      int[] accepted = new int[blocks.length];
      int[] acceptedCrcs = new int[blocks.length];
      for (int i = 0; i < blocks.length; i++) {
        int block = blocks[i];
        if (block < 0 || block >= object.crc32c.length || !lease.blocks.get(block)) {
          continue;
        }
        lease.blocks.clear(block);
        object.inFlight.remove(block);
        if (verified[i]) {
          accepted[published] = block;
          acceptedCrcs[published++] = crc32c[i];
        } else {
          state.refusedBlocks++;
          LOG.warn("Refused to publish block {} of {}: the bytes in {} do not match the CRC32C {} its writer claimed", block, object.version,
              object.dataFile, Integer.toHexString(crc32c[i]));
        }
      }
      for (int i = 0; i < published; i++) {
        object.published.set(accepted[i]);
        object.crc32c[accepted[i]] = acceptedCrcs[i];
      }
      state.insight.filled(object.version, accepted, published);
      state.leases.finishIfDone(lease);
      state.inFlightChanged();
      return published;
    } finally {
      state.lock.unlock();
    }
  }

  /** See {@link InProcessMetadataService#abort}. */
  void abort(long leaseId, int[] blocks, boolean written) {
    List<CachedObject> forgotten = new ArrayList<>();
    List<Integer> charged = new ArrayList<>();
    CachedObject object;
    state.lock.lock();
    try {
      Lease lease = state.leases.get(leaseId);
      if (lease == null) {
        state.space.fencedDone(leaseId, blocks);
        return;
      }
      object = lease.object;
      for (int block : blocks) {
        if (lease.blocks.get(block)) {
          lease.blocks.clear(block);
          object.inFlight.remove(block);
          if (!written) {
            state.space.uncharge(object, block);
          } else {
            charged.add(block);
          }
        }
      }
      state.leases.finishIfDone(lease);
      if (object.charged.isEmpty() && !object.pinned() && state.objects.get(object.version) == object) {
        // nothing cached, written or being fetched (e.g. every fetch failed): keep no metadata for it
        state.objects.forget(object);
        forgotten.add(object);
      }
      state.inFlightChanged();
    } finally {
      state.lock.unlock();
    }
    if (!charged.isEmpty()) {
      state.files.journalCharged(object, charged.stream().mapToInt(Integer::intValue).toArray());
    }
    state.deleteFiles(forgotten);
  }
}
