package io.rubix.core.metadata;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.insight.CachedBytes;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.CacheAdministration;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CachedFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What operators and readers' reports ask of the service besides reads: drop a corrupt block or a
 * version, a path, everything; list the largest files; report per table. Objects are dropped under
 * the lock and their files deleted after it.
 */
final class Administration {
  private static final Logger LOG = LoggerFactory.getLogger(Administration.class);

  private final ServiceState state;

  Administration(ServiceState state) {
    this.state = state;
  }

  /** See {@link InProcessMetadataService#reportCorrupt}. */
  void reportCorrupt(ObjectVersion version, int block) throws IOException {
    CachedObject object;
    int crc;
    state.lock.lock();
    try {
      object = state.objects.get(version);
      if (object == null || block < 0 || block >= object.crc32c.length || !object.published.get(block)) {
        return;
      }
      crc = object.crc32c[block];
    } finally {
      state.lock.unlock();
    }
    DataFiles.BlockCheck check = state.files.check(object, block, crc);
    if (check == DataFiles.BlockCheck.INTACT) {
      LOG.debug("A reader reported block {} of {} failed, but {} holds it intact (the reader's file was dropped meanwhile)", block, version,
          object.dataFile);
      return;
    }
    List<CachedObject> dropped = new ArrayList<>();
    boolean unpublished = false;
    state.lock.lock();
    try {
      if (state.objects.get(version) != object || !object.published.get(block) || object.crc32c[block] != crc) {
        return;
      }
      if (check == DataFiles.BlockCheck.GONE) {
        LOG.warn("Dropping {}: its data file {} is missing or was truncated outside the cache", version, object.dataFile);
        state.objects.drop(object);
        dropped.add(object);
      } else {
        object.published.clear(block);
        object.crc32c[block] = 0;
        unpublished = true;
        LOG.warn("Dropped corrupt block {} of {} in {}", block, version, object.dataFile);
      }
    } finally {
      state.lock.unlock();
    }
    if (unpublished) {
      state.files.journalUnpublished(object, block);
    }
    state.deleteFiles(dropped);
  }

  /** Drops {@code version}, if tracked. */
  void invalidate(ObjectVersion version) {
    List<CachedObject> dropped = new ArrayList<>();
    state.lock.lock();
    try {
      CachedObject object = state.objects.get(version);
      if (object != null) {
        state.objects.drop(object);
        dropped.add(object);
      }
    } finally {
      state.lock.unlock();
    }
    state.deleteFiles(dropped);
  }

  /** Drops every version of {@code path} and of every path under it (a directory); how many. */
  int invalidatePath(String path) {
    List<CachedObject> dropped = new ArrayList<>();
    state.lock.lock();
    try {
      for (CachedObject object : state.objects.atOrUnder(path)) {
        state.objects.drop(object);
        dropped.add(object);
      }
    } finally {
      state.lock.unlock();
    }
    state.deleteFiles(dropped);
    return dropped.size();
  }

  /** {@link io.rubix.spi.metadata.CacheMetadataService#immutableLength}. */
  long immutableLength(String path) {
    long length = -1;
    state.lock.lock();
    try {
      for (CachedObject object : state.objects.at(path)) {
        if (object.version.byPathAndLength() && !object.published.isEmpty()) {
          if (length >= 0) {
            return -1;
          }
          length = object.version.length();
        }
      }
    } finally {
      state.lock.unlock();
    }
    return length;
  }

  /** The {@code limit} (at most {@link CacheAdministration#MAX_TOP_FILES}) versions charged the most bytes, largest first. */
  List<CachedFile> topFiles(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    int size = Math.min(limit, CacheAdministration.MAX_TOP_FILES);
    Comparator<CachedFile> bySize = Comparator.comparingLong(CachedFile::chargedBytes);
    PriorityQueue<CachedFile> largest = new PriorityQueue<>(size + 1, bySize);
    state.lock.lock();
    try {
      for (CachedObject object : state.objects.all()) {
        if (largest.size() == size && object.chargedBytes <= largest.peek().chargedBytes()) {
          continue;
        }
        largest.add(new CachedFile(object.version, object.dataFile.toString(), object.chargedBytes, object.published.cardinality(),
            object.crc32c.length));
        if (largest.size() > size) {
          largest.poll();
        }
      }
    } finally {
      state.lock.unlock();
    }
    List<CachedFile> result = new ArrayList<>(largest);
    result.sort(bySize.reversed());
    return result;
  }

  /** Drops every version; how many. */
  int clear() {
    List<CachedObject> dropped;
    state.lock.lock();
    try {
      dropped = List.copyOf(state.objects.all());
      for (CachedObject object : dropped) {
        state.objects.drop(object);
      }
    } finally {
      state.lock.unlock();
    }
    state.deleteFiles(dropped);
    LOG.info("Cleared the cache: dropped {} object versions", dropped.size());
    return dropped.size();
  }

  /** Per-table counters with the bytes each table holds now, and the working-set estimate. */
  CacheInsightReport insight() {
    List<CachedBytes> cached = new ArrayList<>();
    state.lock.lock();
    try {
      for (CachedObject object : state.objects.all()) {
        long bytes = publishedBytes(object);
        if (bytes > 0) {
          cached.add(new CachedBytes(object.version.path(), bytes));
        }
      }
    } finally {
      state.lock.unlock();
    }
    return state.insight.report(cached);
  }

  @GuardedBy("state.lock")
  private long publishedBytes(CachedObject object) {
    int blockSize = state.blockSize;
    long bytes = (long) object.published.cardinality() * blockSize;
    int last = object.crc32c.length - 1;
    if (last >= 0 && object.published.get(last)) {
      bytes -= blockSize - object.blockLength(last);
    }
    return bytes;
  }
}
