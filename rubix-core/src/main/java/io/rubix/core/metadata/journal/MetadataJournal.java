package io.rubix.core.metadata.journal;

import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * Persists cache metadata so a restarted service is warm again. The service calls it without holding
 * its lock (journal writes are file I/O), in the order of the ordered-write rules: a block is
 * journaled as published only after its bytes are written and checked, and before it is published in
 * memory; an object's journal is removed before its data file. Implementations are thread-safe.
 */
public interface MetadataJournal extends AutoCloseable {
  /** Starts the journal of a new cached object (before any of its blocks is published). */
  void created(ObjectVersion version, Path dataFile) throws IOException;

  /** Records that {@code blocks} of the object at {@code dataFile} are published with {@code crc32c}. */
  void published(Path dataFile, int[] blocks, int[] crc32c) throws IOException;

  /** Records that {@code block} no longer is published (its bytes failed verification). */
  void unpublished(Path dataFile, int block) throws IOException;

  /** Records that {@code block} may have bytes on disk although it is not published (it stays charged). */
  void charged(Path dataFile, int block) throws IOException;

  /** Records {@link #charged(Path, int)} for each of {@code blocks}; the service calls it when it grants them, before a byte is written. */
  default void charged(Path dataFile, int[] blocks) throws IOException {
    for (int block : blocks) {
      charged(dataFile, block);
    }
  }

  /**
   * Records that the object at {@code dataFile} was last read at {@code millis} (wall clock), which
   * {@link #recover} gives back as {@link Recovered#lastUsedMillis}. A hint for eviction and idle
   * expiry, never for which bytes are served.
   */
  default void used(Path dataFile, long millis) throws IOException {}

  /** Removes the journal of the object at {@code dataFile}; called before the data file is deleted. */
  void dropped(Path dataFile) throws IOException;

  /**
   * Every object whose journal validates, read back at startup. Recovery is per entry: an invalid
   * journal is deleted with its data, a data file without a journal is deleted, and a directory or
   * file that cannot be read or deleted is skipped and reported; nothing one entry does stops the
   * others from being recovered, and nothing is thrown.
   */
  Recovery recover(List<Path> roots, int blockSize);

  @Override
  void close() throws IOException;

  /**
   * What {@link #recover} found.
   *
   * @param objects objects read back from their journals
   * @param leftovers files the journal does not describe and could not delete: their bytes stay on disk
   * @param problems entries dropped or unreadable (invalid journals, orphans, unreadable directories)
   */
  record Recovery(List<Recovered> objects, List<Leftover> leftovers, int problems) {
    public Recovery {
      objects = List.copyOf(objects);
      leftovers = List.copyOf(leftovers);
    }

    static final Recovery EMPTY = new Recovery(List.of(), List.of(), 0);
  }

  /** A file in cache root {@code disk} that recovery could not delete, {@code bytes} long. */
  record Leftover(Path file, int disk, long bytes) {}

  /** One object read back from its journal, last read (or changed) at {@code lastUsedMillis}, wall clock. */
  record Recovered(ObjectVersion version, Path dataFile, int disk, long generation, BitSet published, int[] crc32c, BitSet charged,
      long lastUsedMillis) {}

  /** A journal that keeps nothing (embedded mode without persistence). */
  MetadataJournal NONE = new Discarding();

  /** Keeps nothing and recovers nothing; tests extend it to inject one fault. */
  class Discarding implements MetadataJournal {
    @Override
    public void created(ObjectVersion version, Path dataFile) throws IOException {}

    @Override
    public void published(Path dataFile, int[] blocks, int[] crc32c) throws IOException {}

    @Override
    public void unpublished(Path dataFile, int block) throws IOException {}

    @Override
    public void charged(Path dataFile, int block) throws IOException {}

    @Override
    public void dropped(Path dataFile) throws IOException {}

    @Override
    public Recovery recover(List<Path> roots, int blockSize) {
      return Recovery.EMPTY;
    }

    @Override
    public void close() {}
  }
}
