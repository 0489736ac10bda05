package io.rubix.bookkeeper.metrics;

import static java.util.Objects.requireNonNull;

import io.rubix.bookkeeper.server.EngineCounters;
import io.rubix.core.stats.CacheCounter;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How each unlabelled entry of the daemon's stats map (the map {@code rubix stats}, {@code rubix status}
 * and the Thrift {@code stats()} call read, whose keys do not change) is exposed on {@code /metrics}:
 * counter or gauge, Prometheus name and help. Most keep their key as name (counters gain {@code _total}
 * when written); {@code rubix_bookkeeper_started_at_millis} is exposed as
 * {@code rubix_bookkeeper_start_time_seconds} and {@code rubix_transfer_bytes_served} as
 * {@code rubix_transfer_served_bytes_total}. Entries of the map without a family here are not exposed
 * (a test keeps every key of a running daemon covered).
 */
final class StatsFamilies {
  /**
   * One stats-map key, its family, and what the map's value is divided by to give the metric's (1000:
   * milliseconds to seconds; a division, so the seconds are the correctly rounded quotient).
   */
  record Entry(String key, Family family, double divisor) {
    Entry {
      requireNonNull(key, "key is null");
      requireNonNull(family, "family is null");
    }
  }

  private static final Map<String, Entry> ENTRIES = entries();

  private StatsFamilies() {}

  /** Every entry, in the order the daemon lists its stats. */
  static Collection<Entry> all() {
    return ENTRIES.values();
  }

  private static Map<String, Entry> entries() {
    Map<String, Entry> entries = new LinkedHashMap<>();
    // the Thrift server (ServerCounters)
    counter(entries, "rubix_bookkeeper_status_calls", "Status calls answered: which blocks of an object version are cached.");
    counter(entries, "rubix_bookkeeper_acquire_calls", "Acquire calls: requests for grants to fetch and cache blocks.");
    counter(entries, "rubix_bookkeeper_commit_calls", "Commit calls: fetched blocks published to the cache.");
    counter(entries, "rubix_bookkeeper_abort_calls", "Abort calls: grants given back unfilled.");
    counter(entries, "rubix_bookkeeper_wait_calls", "Calls that waited for blocks another reader was fetching.");
    gauge(entries, "rubix_bookkeeper_leases_waiting", "Calls waiting now for blocks another reader is fetching.");
    counter(entries, "rubix_bookkeeper_corrupt_block_reports", "Blocks readers reported as failing their checksum (dropped, fetched again).");
    counter(entries, "rubix_bookkeeper_bad_requests", "Requests refused as invalid (paths, ranges, counter reports): version skew or a bad client.");
    counter(entries, "rubix_bookkeeper_errors", "Requests that failed inside the daemon (see its log).");
    counter(entries, "rubix_bookkeeper_clear_calls", "Clear calls: everything cached on the node dropped.");
    counter(entries, "rubix_bookkeeper_unauthenticated_connections", "Connections closed because they did not prove they hold the BookKeeper secret.");
    // the metadata service
    gauge(entries, "rubix_cache_used_bytes", "Bytes charged against the cache's capacity (blocks rounded up to 4 KiB, and 4 KiB per file).");
    gauge(entries, "rubix_cache_capacity_bytes", "The cache's capacity: the sum of its directories' caps.");
    gauge(entries, "rubix_cache_reserved_bytes", "Bytes reserved for blocks being fetched, not yet committed.");
    gauge(entries, "rubix_cache_objects", "Cached object versions.");
    counter(entries, "rubix_cache_evictions", "Object versions evicted to make room.");
    counter(entries, "rubix_cache_admission_rejections", "Blocks or objects the tinylfu policy did not cache because what they would evict is read more often.");
    counter(entries, "rubix_cache_expirations", "Object versions dropped because nobody read them for the idle expiry time.");
    gauge(entries, "rubix_cache_expire_after_idle_seconds", "The idle expiry time; 0 when idle expiry is off.");
    gauge(entries, "rubix_cache_recovered_blocks", "Blocks recovered from the journal when the daemon started.");
    counter(entries, "rubix_cache_refused_commit_blocks", "Blocks not published because their bytes on disk did not match the CRC32C their writer claimed.");
    counter(entries, "rubix_rule_excluded_requests", "Grants refused for paths an exclude rule names.");
    add(entries, "rubix_bookkeeper_started_at_millis",
        Family.gauge("rubix_bookkeeper_start_time_seconds", "When the daemon started, in seconds since the Unix epoch."), 1000);
    // the transfer port
    counter(entries, "rubix_transfer_requests", "Block requests from peers served on the transfer port.");
    add(entries, "rubix_transfer_bytes_served", Family.counter("rubix_transfer_served_bytes", "Bytes of cached blocks sent to peers."), 1);
    counter(entries, "rubix_transfer_refused_connections", "Peer connections refused because every transfer thread was busy.");
    counter(entries, "rubix_transfer_bad_requests", "Malformed transfer requests: version skew or scanners.");
    counter(entries, "rubix_transfer_unauthorized_requests", "Transfer requests refused for a wrong or missing transfer secret.");
    counter(entries, "rubix_transfer_refused_handshakes", "TLS handshakes on the transfer port that failed: TLS off at the peer, untrusted or expired certificates, scanners.");
    // fills for peers (PeerFill)
    gauge(entries, "rubix_peer_fill_enabled", "1 when this node fetches the blocks it owns and has not cached for the peers that ask, else 0.");
    gauge(entries, "rubix_peer_fill_allowed_stores", "How many stores this node fetches from for peers (0: none).");
    for (CacheCounter counter : CacheCounter.values()) {
      if (counter.statisticName().startsWith("rubix_peer_fill_")) {
        counter(entries, counter.statisticName(), describe(counter));
      }
    }
    // what the node's engine JVMs report (EngineCounters)
    for (CacheCounter counter : CacheCounter.values()) {
      counter(entries, EngineCounters.exportedName(counter.statisticName()), "Summed over this node's engine JVMs' reports: " + describe(counter));
    }
    counter(entries, "rubix_engines_reports", "Counter reports received from this node's engine JVMs.");
    // the working-set estimate (InsightMetrics)
    gauge(entries, "rubix_working_set_bytes", "Distinct bytes read in the last window (rubix_working_set_window_seconds).");
    gauge(entries, "rubix_working_set_accessed_bytes", "Bytes of blocks read in the last window, repeats included.");
    gauge(entries, "rubix_working_set_window_seconds", "How much time the working-set estimate covers.");
    return entries;
  }

  private static void counter(Map<String, Entry> entries, String key, String help) {
    add(entries, key, Family.counter(key, help), 1);
  }

  private static void gauge(Map<String, Entry> entries, String key, String help) {
    add(entries, key, Family.gauge(key, help), 1);
  }

  private static void add(Map<String, Entry> entries, String key, Family family, double divisor) {
    if (entries.put(key, new Entry(key, family, divisor)) != null) {
      throw new IllegalStateException("Stats key " + key + " declared twice");
    }
  }

  /** What a {@link CacheCounter} counts, as help text. */
  static String describe(CacheCounter counter) {
    return switch (counter) {
      case HIT_BYTES -> "Bytes read from the cache (local blocks and footers kept in memory).";
      case HIT_BLOCKS -> "Blocks read from the cache.";
      case MISS_BYTES -> "Bytes asked for that the cache did not hold.";
      case MISS_BLOCKS -> "Blocks asked for that the cache did not hold.";
      case SOURCE_BYTES -> "Bytes read from the source (the object store).";
      case SOURCE_REQUESTS -> "Requests (GETs) to the source.";
      case CACHE_WRITE_BYTES -> "Bytes written to the cache.";
      case READAHEAD_BLOCKS -> "Blocks fetched ahead of sequential reads.";
      case EXTENT_BLOCKS -> "Blocks a miss fetched beyond the bytes asked for, in the same request: an object's tail, or a small object whole.";
      case TAIL_MEMORY_BYTES -> "Bytes served from the tails kept in memory.";
      case UNCACHED_READAHEAD_BYTES -> "Bytes the cache declined, read from the source ahead of a stream's reads into its memory.";
      case INFLIGHT_WAITS -> "Reads that waited for blocks another reader was fetching.";
      case CHECKSUM_FAILURES -> "Cached blocks that failed their CRC32C check.";
      case FALLBACK_CACHE_READ -> "Reads that fell back to the source after a cache read error.";
      case FALLBACK_CACHE_WRITE -> "Reads that fell back to the source after a cache write error.";
      case FALLBACK_CHECKSUM -> "Reads that fell back to the source after a checksum mismatch.";
      case FALLBACK_METADATA -> "Reads that fell back to the source because the metadata service failed or was unreachable.";
      case FALLBACK_NO_SPACE -> "Reads from the source because a grant was denied (no space, a quota, or the eviction policy).";
      case FALLBACK_INFLIGHT -> "Reads that fell back to the source after waiting too long for another reader's fetch.";
      case RULE_EXCLUDED_OPENS -> "Streams opened on paths an exclude rule names (read from the source, uncached).";
      case NON_OWNER_SOURCE_BYTES -> "Bytes of blocks another node owns, read from the source and not cached.";
      case PEER_BYTES -> "Bytes of blocks another node owns, read from that node's cache.";
      case FALLBACK_PEER -> "Peer reads that failed (down, timeout, not cached, bad checksum, refused) and went to the source.";
      case PEER_COALESCED_BLOCKS -> "Blocks a read took from a peer transfer another thread had started.";
      case PEER_READAHEAD_BLOCKS -> "Blocks owned elsewhere that sequential streams asked their owners for ahead of the read.";
      case HANDOFF_BYTES -> "Bytes of owned blocks taken from their previous owner instead of the source.";
      case PEER_FILL_REQUESTS -> "Peer requests for which this node fetched missing blocks from the source.";
      case PEER_FILL_SOURCE_REQUESTS -> "Source requests (GETs) made to fill blocks for peers.";
      case PEER_FILL_SOURCE_BYTES -> "Bytes read from the source to fill blocks for peers.";
      case PEER_FILL_STALE -> "Peer requests for a version the source no longer has.";
      case PEER_FILL_NOT_ALLOWED -> "Peer requests for a store this node does not fetch from for peers.";
      case PEER_FILL_FAILED -> "Fills for peers that failed or timed out (source error, credentials, disk).";
      case PEER_FILL_BUSY -> "Fills for peers not started because the fill pool was full or the source had just failed.";
    };
  }
}
