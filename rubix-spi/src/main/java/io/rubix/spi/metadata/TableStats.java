package io.rubix.spi.metadata;

import static java.util.Objects.requireNonNull;

/**
 * What a metadata service saw of one path prefix (a "table", see {@code rubix.cache.stats.prefix.depth})
 * since it started monitoring it, or of all the other prefixes together ({@link #OTHER}).
 *
 * <p>Counted where the service can see it: a <em>hit</em> is a block a {@code status} or {@code acquire}
 * answer names as cached, a <em>miss</em> one an {@code acquire} answer grants or denies (the reader
 * then reads it from the source). A client that answers a read from its recent status makes no call,
 * so it counts nothing; a status names the blocks of a read-ahead window that the stream may not read.
 *
 * @param prefix the path prefix, or {@link #OTHER}
 * @param hitBlocks blocks answered as cached
 * @param missBlocks blocks answered as granted or denied by {@code acquire}
 * @param cachedBytes bytes of published blocks held now (for {@link #OTHER}: of every prefix not listed)
 * @param grantedBytes bytes of blocks granted to a fetcher
 * @param filledBytes bytes of blocks committed (written, verified and published)
 * @param evictions object versions evicted to make room
 * @param weightError how much the prefix's access count may be overstated by the space-saving table
 *     (the count of the prefix it replaced); 0 for {@link #OTHER}
 */
public record TableStats(String prefix, long hitBlocks, long missBlocks, long cachedBytes, long grantedBytes, long filledBytes, long evictions,
    long weightError) {
  /** The prefix of the entry that sums every prefix not listed. */
  public static final String OTHER = "other";

  public TableStats {
    requireNonNull(prefix, "prefix is null");
  }

  /** Hits over hits and misses, 0 when there were none. */
  public double hitRatio() {
    long total = hitBlocks + missBlocks;
    return total == 0 ? 0 : (double) hitBlocks / total;
  }
}
