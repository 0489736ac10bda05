package io.rubix.spi.config;

import java.util.List;

/** Keys of what the metadata service reports per table and of its working-set estimate. */
public final class InsightKeys {
  public static final ConfigKey PREFIX_DEPTH = new ConfigKey("rubix.cache.stats.prefix.depth", "3",
      "How many path components name a table in per-table statistics, 1 to 64, counting the bucket (authority) as the first and never the"
          + " object's own name: at 3, s3a://lake/db/orders/part-0.orc and s3a://lake/db/orders/dt=1/part-0.orc count for s3a://lake/db/orders,"
          + " s3a://lake/a/file for s3a://lake/a (its directory: a prefix stops before the file name). Paths without an authority (file:/x/y/z)"
          + " count their first directory as the first component.");
  public static final ConfigKey PREFIX_ENTRIES = new ConfigKey("rubix.cache.stats.prefix.entries", "50",
      "Most tables (prefixes) with their own statistics, 1 to 1000; the rest are summed as the table other. The most accessed tables keep"
          + " an entry (a space-saving table: any prefix with more than 1/N of the accessed blocks is listed), so the Prometheus label table"
          + " takes at most N+1 values.");
  public static final ConfigKey SHADOW_WINDOW = new ConfigKey("rubix.cache.shadow.window", "1h",
      "Length of the sliding window of the working-set estimate (distinct bytes accessed, and the hit ratios of shadow caches of 0.5x, 1x"
          + " and 2x the capacity); at least 4s. The window slides by a quarter of its length.");
  public static final ConfigKey SHADOW_SAMPLE_BLOCKS = new ConfigKey("rubix.cache.shadow.sample.blocks", "16384",
      "Memory bound of the shadow caches: the 2x shadow LRU holds about this many sampled block keys (the sample rate is set so that 2x the"
          + " capacity in blocks times the rate is this number), 1024 to 4194304; about 200 bytes of heap per key over the three shadow caches.");

  private InsightKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(PREFIX_DEPTH, PREFIX_ENTRIES, SHADOW_WINDOW, SHADOW_SAMPLE_BLOCKS);
  }
}
