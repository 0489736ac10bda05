package io.rubix.core.stats;

/** What the cache counts. Each counter is exposed under its {@link #statisticName()} in IOStatistics and JMX. */
public enum CacheCounter {
  HIT_BYTES("rubix_cache_hit_bytes"),
  HIT_BLOCKS("rubix_cache_hit_blocks"),
  MISS_BYTES("rubix_cache_miss_bytes"),
  MISS_BLOCKS("rubix_cache_miss_blocks"),
  SOURCE_BYTES("rubix_source_bytes"),
  SOURCE_REQUESTS("rubix_source_requests"),
  CACHE_WRITE_BYTES("rubix_cache_write_bytes"),
  READAHEAD_BLOCKS("rubix_readahead_blocks"),
  /** Blocks a miss fetched beyond the bytes asked for, in the same request: an object's tail, or a small object whole. */
  EXTENT_BLOCKS("rubix_extent_blocks"),
  /** Bytes served from the tails kept in memory (also counted in {@code rubix_cache_hit_bytes}, not in {@code rubix_cache_hit_blocks}). */
  TAIL_MEMORY_BYTES("rubix_tail_memory_bytes"),
  /**
   * Bytes read from the source ahead of a stream's reads and held in its memory because the cache does not keep them
   * (read-ahead of declined blocks, and the rest of a block a sequential read of declined bytes ended in).
   */
  UNCACHED_READAHEAD_BYTES("rubix_uncached_readahead_bytes"),
  INFLIGHT_WAITS("rubix_inflight_waits"),
  CHECKSUM_FAILURES("rubix_checksum_failures"),
  FALLBACK_CACHE_READ("rubix_fallback_cache_read_error"),
  FALLBACK_CACHE_WRITE("rubix_fallback_cache_write_error"),
  FALLBACK_CHECKSUM("rubix_fallback_checksum_mismatch"),
  FALLBACK_METADATA("rubix_fallback_metadata_error"),
  FALLBACK_NO_SPACE("rubix_fallback_no_space"),
  FALLBACK_INFLIGHT("rubix_fallback_inflight_timeout"),
  /** Streams opened on paths a rule of {@code rubix.cache.rules} excludes: they read the source directly, uncached. */
  RULE_EXCLUDED_OPENS("rubix_rule_excluded_opens"),
  /** Bytes of blocks this node does not own (rubix.cache.admission=owner-only), read from the source and not cached. */
  NON_OWNER_SOURCE_BYTES("rubix_non_owner_source_bytes"),
  /** Bytes of blocks this node does not own, read from the owner node's cache over its data-transfer port. */
  PEER_BYTES("rubix_peer_bytes"),
  /** Peer reads that failed (peer down, timeout, not cached there, bad checksum, refused) and went to the source. */
  FALLBACK_PEER("rubix_fallback_peer"),
  /** Blocks a read took from a transfer from the owner that another thread of this JVM had started (one transfer instead of several). */
  PEER_COALESCED_BLOCKS("rubix_peer_coalesced_blocks"),
  /** Blocks owned elsewhere that sequential streams asked their owners for ahead of the read. */
  PEER_READAHEAD_BLOCKS("rubix_peer_readahead_blocks"),
  /**
   * Bytes of blocks this node owns that it took from the node that owned them before it joined (their
   * split's runner-up) instead of the source: what scale-out did not fetch again.
   */
  HANDOFF_BYTES("rubix_handoff_bytes"),
  /** Owner side: peer requests for which this node fetched missing blocks from the source. */
  PEER_FILL_REQUESTS("rubix_peer_fill_requests"),
  /** Owner side: source reads (GETs) this node made to fill blocks for peers. */
  PEER_FILL_SOURCE_REQUESTS("rubix_peer_fill_source_requests"),
  /** Owner side: bytes this node read from the source to fill blocks for peers. */
  PEER_FILL_SOURCE_BYTES("rubix_peer_fill_source_bytes"),
  /** Owner side: peer requests for a version the source no longer has (answered STALE). */
  PEER_FILL_STALE("rubix_peer_fill_stale"),
  /**
   * Owner side: peer requests for objects of a store this node does not fetch from for peers (its scheme is not in
   * rubix.network.transfer.fetch.schemes or its authority not allowed by rubix.network.transfer.fetch.allowed.authorities),
   * answered BAD_REQUEST: the peer reads them from the store itself.
   */
  PEER_FILL_NOT_ALLOWED("rubix_peer_fill_not_allowed"),
  /** Owner side: fills that failed or timed out (source error, credentials, disk), answered NOT_CACHED. */
  PEER_FILL_FAILED("rubix_peer_fill_failed"),
  /** Owner side: fills not started because the fill pool was full or the source had just failed (backoff), answered NOT_CACHED. */
  PEER_FILL_BUSY("rubix_peer_fill_busy");

  private final String statisticName;

  CacheCounter(String statisticName) {
    this.statisticName = statisticName;
  }

  public String statisticName() {
    return statisticName;
  }
}
