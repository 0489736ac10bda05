package io.rubix.core.read.session;

/**
 * Decides which missing blocks this node caches. A block it does not admit is read from the source
 * for the caller and not cached (counted as {@code rubix_non_owner_source_bytes}); blocks that are
 * already cached are served from the cache either way.
 */
@FunctionalInterface
public interface BlockAdmission {
  /** Caches every block (no cluster manager, or {@code rubix.cache.admission=all}). */
  BlockAdmission ALL = new BlockAdmission() {
    @Override
    public boolean admits(String path, long offset) {
      return true;
    }

    @Override
    public boolean admitsAll() {
      return true;
    }
  };

  /**
   * Whether this node caches the block of {@code path} (the version's fully qualified path) that
   * starts at byte {@code offset}. Called on the read path: must answer from memory, never block.
   */
  boolean admits(String path, long offset);

  /**
   * Whether {@link #admits} is true for every block, whatever the path and offset, now and later:
   * the one answer to "does this node cache everything", which readers ask instead of comparing
   * with {@link #ALL} (a cluster configured with {@code rubix.cache.admission=all} caches everything too).
   */
  default boolean admitsAll() {
    return false;
  }
}
