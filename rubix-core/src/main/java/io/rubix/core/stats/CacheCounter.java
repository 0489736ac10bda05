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
  INFLIGHT_WAITS("rubix_inflight_waits"),
  CHECKSUM_FAILURES("rubix_checksum_failures"),
  FALLBACK_CACHE_READ("rubix_fallback_cache_read_error"),
  FALLBACK_CACHE_WRITE("rubix_fallback_cache_write_error"),
  FALLBACK_CHECKSUM("rubix_fallback_checksum_mismatch"),
  FALLBACK_METADATA("rubix_fallback_metadata_error"),
  FALLBACK_NO_SPACE("rubix_fallback_no_space"),
  FALLBACK_INFLIGHT("rubix_fallback_inflight_timeout"),
  /** Bytes of blocks this node does not own (rubix.cache.admission=owner-only), read from the source and not cached. */
  NON_OWNER_SOURCE_BYTES("rubix_non_owner_source_bytes"),
  /** Bytes of blocks this node does not own, read from the owner node's cache over its data-transfer port. */
  PEER_BYTES("rubix_peer_bytes"),
  /** Peer reads that failed (peer down, timeout, not cached there, bad checksum, refused) and went to the source. */
  FALLBACK_PEER("rubix_fallback_peer");

  private final String statisticName;

  CacheCounter(String statisticName) {
    this.statisticName = statisticName;
  }

  public String statisticName() {
    return statisticName;
  }
}
