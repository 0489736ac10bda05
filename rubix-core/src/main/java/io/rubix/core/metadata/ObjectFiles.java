package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.core.metadata.journal.MetadataJournal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of cached objects: each object's journal entries and its data file, created, checked
 * and deleted here, always outside the metadata service's lock (every method does file I/O; a slow
 * disk delays the callers that touch that object's files and nothing else). Never takes a writer's
 * word for its bytes: a block is published only if the bytes on disk have the CRC32C it claims. A
 * block of zeros is published like any other although on disk it cannot be told from a hole: its
 * CRC32C is its writer's CRC32C of the source bytes, and the writer never claims the CRC32C of zeros
 * for other bytes (see {@code BlockStore.committable}), so a hole matches it only where the source
 * holds zeros, which are then the block's bytes.
 *
 * <p>Order keeps a crash safe: an object's journal exists before its data file, a block is journaled
 * as published before the service publishes it, a dropped object is journaled as dropped before its
 * data file is truncated and unlinked (a crash in between leaves an orphan recovery deletes, never a
 * resurrected object). Journal write failures are logged: they only cost what survives a restart.
 */
final class ObjectFiles {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectFiles.class);

  private final MetadataJournal journal;
  private final int blockSize;
  private final List<Consumer<Path>> evictionListeners = new CopyOnWriteArrayList<>();

  ObjectFiles(MetadataJournal journal, int blockSize) {
    this.journal = requireNonNull(journal, "journal is null");
    this.blockSize = blockSize;
  }

  void addEvictionListener(Consumer<Path> listener) {
    evictionListeners.add(requireNonNull(listener, "listener is null"));
  }

  /** Journals {@code object} and creates its data file (the service creates data files; writers only open them). */
  void create(CachedObject object) throws IOException {
    journal.created(object.version, object.dataFile);
    DataFiles.create(object.dataFile, object.version);
  }

  /** The recovered entries whose data files are live (see {@link DataFiles#makeLive}); the others are journaled dropped and deleted. */
  List<MetadataJournal.Recovered> live(List<MetadataJournal.Recovered> recovered) {
    List<MetadataJournal.Recovered> live = new ArrayList<>(recovered.size());
    for (MetadataJournal.Recovered r : recovered) {
      try {
        if (DataFiles.makeLive(r.dataFile(), r.version())) {
          live.add(r);
          continue;
        }
        LOG.warn("Dropping recovered cache file {} of {}: it is longer than any data file of that version", r.dataFile(), r.version());
      } catch (IOException e) {
        LOG.warn("Dropping recovered cache file {} of {}: it cannot be opened", r.dataFile(), r.version(), e);
      }
      try {
        journal.dropped(r.dataFile());
        DataFiles.delete(r.dataFile());
      } catch (IOException e) {
        LOG.warn("Could not delete cache file {}", r.dataFile(), e);
      }
    }
    return live;
  }

  /**
   * Which of {@code blocks} of {@code object} hold, on disk, the bytes whose CRC32C their writer claims
   * in {@code crc32c}; a block outside the object is not verified.
   */
  boolean[] verify(CachedObject object, int[] blocks, int[] crc32c) throws IOException {
    boolean[] verified = new boolean[blocks.length];
    ByteBuffer scratch = ByteBuffer.allocate(blockSize);
    for (int i = 0; i < blocks.length; i++) {
      if (blocks[i] >= 0 && blocks[i] < object.crc32c.length) {
        verified[i] = DataFiles.check(object.dataFile, object.version, blockSize, blocks[i], crc32c[i], scratch) == DataFiles.BlockCheck.INTACT;
      }
    }
    return verified;
  }

  /** What block {@code block} of {@code object}, published with {@code crc32c}, holds on disk now. */
  DataFiles.BlockCheck check(CachedObject object, int block, int crc32c) throws IOException {
    return DataFiles.check(object.dataFile, object.version, blockSize, block, crc32c, ByteBuffer.allocate(blockSize));
  }

  /** Journals the verified blocks as published and the others as charged (their bytes may be on disk). */
  void journalVerified(CachedObject object, int[] blocks, int[] crc32c, boolean[] verified) {
    int count = 0;
    int[] held = new int[blocks.length];
    int[] crcs = new int[blocks.length];
    for (int i = 0; i < blocks.length; i++) {
      if (verified[i]) {
        held[count] = blocks[i];
        crcs[count++] = crc32c[i];
      } else if (blocks[i] >= 0 && blocks[i] < object.crc32c.length) {
        journalCharged(object, new int[] {blocks[i]});
      }
    }
    if (count == 0) {
      return;
    }
    try {
      journal.published(object.dataFile, Arrays.copyOf(held, count), Arrays.copyOf(crcs, count));
    } catch (IOException e) {
      LOG.warn("Could not journal {} published blocks of {}; they will not survive a restart", count, object.version, e);
    }
  }

  /** Journals {@code blocks} of {@code object} as charged: granted, or written but not published, so their bytes may be on disk. */
  void journalCharged(CachedObject object, int[] blocks) {
    try {
      journal.charged(object.dataFile, blocks);
    } catch (IOException e) {
      LOG.warn("Could not journal a change of {}", object.version, e);
    }
  }

  /** Journals that {@code object} was last read at {@code millis}; a failure only makes it look idle for longer after a restart. */
  void journalUsed(CachedObject object, long millis) {
    try {
      journal.used(object.dataFile, millis);
    } catch (IOException e) {
      LOG.debug("Could not journal the last use of {}", object.version, e);
    }
  }

  /** Journals block {@code block} of {@code object} as no longer published (found corrupt). */
  void journalUnpublished(CachedObject object, int block) {
    try {
      journal.unpublished(object.dataFile, block);
    } catch (IOException e) {
      LOG.warn("Could not journal a change of {}", object.version, e);
    }
  }

  /**
   * Deletes the files of the dropped {@code object}, journal first; true once they are gone. Listeners
   * (this JVM's open-file cache) hear of it before. The data file is truncated before it is unlinked:
   * readers in other JVMs (BookKeeper mode) keep cache files open, and an unlinked file they hold would
   * keep its blocks allocated, over the cap and invisible to the accounting, until they close it. A
   * reader that still reads the truncated file finds it short of its live length, which tells it the
   * file is gone: it re-reads the source.
   */
  boolean delete(CachedObject object) {
    for (Consumer<Path> listener : evictionListeners) {
      listener.accept(object.dataFile);
    }
    try {
      journal.dropped(object.dataFile);
      DataFiles.delete(object.dataFile);
      return true;
    } catch (IOException e) {
      LOG.warn("Could not delete evicted cache file {}; its {} charged bytes stay charged", object.dataFile, object.releasingBytes, e);
      return false;
    }
  }
}
