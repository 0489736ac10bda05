package io.rubix.bookkeeper.cli;

import io.rubix.bookkeeper.fetch.PeerFill;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rubix status}: is the daemon up, how full is the cache, what takes the space. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Shows the BookKeeper's health: node, uptime, cache use per disk, request counters and the largest cached files.",
        "Exits 1 when the daemon does not answer."})
final class StatusCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;
  @Mixin
  DaemonOptions daemonOptions;

  @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Largest cached files to list (0 for none; at most 1000). Default: ${DEFAULT-VALUE}.")
  int top;

  @Option(names = "--tables", paramLabel = "N", defaultValue = "10",
      description = "Tables (path prefixes, see rubix.cache.stats.prefix.depth) with the most bytes cached to list, then other (0 for none). Default: ${DEFAULT-VALUE}.")
  int tables;

  /** The node's hit ratio from what the reading JVMs reported (see {@code rubix_engines_*}). */
  static String hitRatio(Map<String, Long> counters) {
    if (counters.getOrDefault("rubix_engines_reports", 0L) == 0) {
      return "no reports from reading JVMs yet (they report every rubix.network.client.counters.interval and when they close)";
    }
    long hit = counters.getOrDefault("rubix_engines_cache_hit_bytes", 0L);
    long miss = counters.getOrDefault("rubix_engines_cache_miss_bytes", 0L);
    long fallbacks = counters.entrySet().stream().filter(e -> e.getKey().startsWith("rubix_engines_fallback_")).mapToLong(Map.Entry::getValue).sum();
    return String.format(Locale.ROOT, "%s of %s read by this node's JVMs came from the cache; %s from the source, %s from peers; %d fallbacks",
        Formats.percent(hit, hit + miss), Formats.bytes(hit + miss), Formats.bytes(counters.getOrDefault("rubix_engines_source_bytes", 0L)),
        Formats.bytes(counters.getOrDefault("rubix_engines_peer_bytes", 0L)), fallbacks);
  }

  /**
   * Whether this node fetches the blocks it owns and has not cached for the peers that ask, and why not:
   * when it does not, its peers read those blocks from the store themselves, uncached here.
   */
  static String peerFills(Map<String, Long> counters) {
    if (!counters.containsKey("rubix_peer_fill_enabled")) {
      return "not reported (an older daemon)";
    }
    if (!counters.containsKey("rubix_transfer_requests")) {
      return "off: the transfer port is off (rubix.network.transfer.enabled, rubix.network.transfer.server.port)";
    }
    if (counters.get("rubix_peer_fill_enabled") == 0) {
      return "off (rubix.network.transfer.fetch.enabled=false): peers read what this node has not cached from the store themselves";
    }
    long refused = counters.getOrDefault("rubix_peer_fill_not_allowed", 0L);
    if (counters.getOrDefault(PeerFill.ALLOWED_STORES, 0L) == 0) {
      return String.format(Locale.ROOT, "off: no store allowed (set rubix.network.transfer.fetch.allowed.authorities); peers read what this "
          + "node has not cached from the store themselves; %d requests refused", refused);
    }
    return String.format(Locale.ROOT, "on for %d stores (the daemon's log names them): %d requests, %s fetched in %d requests; "
        + "%d refused (store not allowed), %d busy, %d failed, %d stale", counters.get(PeerFill.ALLOWED_STORES),
        counters.getOrDefault("rubix_peer_fill_requests", 0L), Formats.bytes(counters.getOrDefault("rubix_peer_fill_source_bytes", 0L)),
        counters.getOrDefault("rubix_peer_fill_source_requests", 0L), refused, counters.getOrDefault("rubix_peer_fill_busy", 0L),
        counters.getOrDefault("rubix_peer_fill_failed", 0L), counters.getOrDefault("rubix_peer_fill_stale", 0L));
  }

  @Override
  public Integer call() throws Exception {
    DaemonSnapshot snapshot = daemonOptions.snapshot(top, true);
    PrintWriter out = spec.commandLine().getOut();
    out.printf("BookKeeper %s at %s: up%n", snapshot.info().getNodeId(), snapshot.address());
    out.printf("  uptime      %s (since %s)%n", Formats.duration(Duration.ofMillis(snapshot.uptimeMillis())),
        Instant.ofEpochMilli(snapshot.info().getStartedAtMillis()));
    out.printf("  block size  %s, protocol %d%n", Formats.bytes(snapshot.info().getBlockSize()), snapshot.info().getProtocolVersion());
    out.printf("  cache       %s of %s used (%s), %s reserved, %d objects, %d evictions, %d admission rejections%n",
        Formats.bytes(snapshot.usage().usedBytes()), Formats.bytes(snapshot.capacityBytes()),
        Formats.percent(snapshot.usage().usedBytes(), snapshot.capacityBytes()), Formats.bytes(snapshot.reservedBytes()), snapshot.objects(),
        snapshot.usage().evictions(), snapshot.usage().admissionRejections());
    for (CacheUsage.Disk disk : snapshot.usage().disks()) {
      out.printf("  disk        %s: %s of %s (%s), %s reserved, %d objects%n", disk.directory(), Formats.bytes(disk.usedBytes()),
          Formats.bytes(disk.capacityBytes()), Formats.percent(disk.usedBytes(), disk.capacityBytes()), Formats.bytes(disk.reservedBytes()),
          disk.objects());
    }
    snapshot.rules().forEach((rule, metrics) -> {
      long quota = metrics.getOrDefault("quota_bytes", 0L);
      long used = metrics.getOrDefault("used_bytes", 0L);
      out.printf("  rule        %s: %s of %s quota (%s), %d objects, %d evictions, %d denied%n", rule, Formats.bytes(used), Formats.bytes(quota),
          Formats.percent(used, quota), metrics.getOrDefault("objects", 0L), metrics.getOrDefault("evictions", 0L),
          metrics.getOrDefault("denials", 0L));
    });
    Map<String, Long> counters = snapshot.counters();
    out.printf("  requests    status %d, acquire %d, commit %d, abort %d, wait %d; bad requests %d, errors %d%n",
        counters.getOrDefault("rubix_bookkeeper_status_calls", 0L), counters.getOrDefault("rubix_bookkeeper_acquire_calls", 0L),
        counters.getOrDefault("rubix_bookkeeper_commit_calls", 0L), counters.getOrDefault("rubix_bookkeeper_abort_calls", 0L),
        counters.getOrDefault("rubix_bookkeeper_wait_calls", 0L), counters.getOrDefault("rubix_bookkeeper_bad_requests", 0L),
        counters.getOrDefault("rubix_bookkeeper_errors", 0L));
    out.printf("  peer fills  %s%n", peerFills(counters));
    out.printf("  blocks      %d corrupt reports, %d recovered at start, %d requests for paths excluded by rules%n",
        counters.getOrDefault("rubix_bookkeeper_corrupt_block_reports", 0L), counters.getOrDefault("rubix_cache_recovered_blocks", 0L),
        counters.getOrDefault("rubix_rule_excluded_requests", 0L));
    long idleSeconds = counters.getOrDefault("rubix_cache_expire_after_idle_seconds", 0L);
    out.printf("  expiry      %s%n", idleSeconds <= 0 ? "off (rubix.cache.expire.after.idle)"
        : "after " + Formats.duration(Duration.ofSeconds(idleSeconds)) + " unread: " + counters.getOrDefault("rubix_cache_expirations", 0L)
            + " object versions expired");
    out.println("  hit ratio   " + hitRatio(counters));
    snapshot.insight().ifPresentOrElse(insight -> printInsight(out, insight, snapshot.capacityBytes()),
        () -> out.println("  tables      (this daemon does not report tables: an older version)"));
    if (top > 0) {
      if (snapshot.topFiles().isEmpty()) {
        out.println("  top files   (cache is empty)");
      } else {
        out.println("  top files   (by bytes on disk)");
        for (CachedFile file : snapshot.topFiles()) {
          out.printf("    %10s  %6s cached (%d/%d blocks)  %s%n", Formats.bytes(file.chargedBytes()),
              Formats.percent(file.cachedBlocks(), file.blocks()), file.cachedBlocks(), file.blocks(), file.version().path());
        }
      }
    }
    return 0;
  }

  /** The working-set line (an operator can size the disks by it) and the top tables by bytes cached. */
  private void printInsight(PrintWriter out, CacheInsightReport insight, long capacityBytes) {
    WorkingSetEstimate w = insight.workingSet();
    out.printf("  working set %s distinct in the last %s (%s of the capacity, %s)%n", Formats.bytes(w.distinctBytes()),
        Formats.duration(Duration.ofMillis(w.windowMillis())), Formats.percent(w.distinctBytes(), capacityBytes), Formats.bytes(capacityBytes));
    if (w.shadowKnown()) {
      out.printf("  if sized    0.5x/1x/2x the capacity, an LRU cache would have hit %s/%s/%s of the bytes (this cache: %s, as the daemon counts)%n",
          ratio(w.shadowHitRatioHalf()), ratio(w.shadowHitRatioOne()), ratio(w.shadowHitRatioDouble()), ratio(w.observedHitRatio()));
    } else {
      out.printf("  if sized    (not known yet: %d of %d block accesses sampled in the window; this cache: %s)%n", w.sampledAccesses(),
          WorkingSetEstimate.MIN_SAMPLED_ACCESSES, ratio(w.observedHitRatio()));
    }
    if (tables <= 0) {
      return;
    }
    List<TableStats> all = new ArrayList<>(insight.tables());
    all.sort(Comparator.comparingLong(TableStats::cachedBytes).reversed().thenComparing(TableStats::prefix));
    if (all.isEmpty() && insight.other().hitBlocks() + insight.other().missBlocks() == 0) {
      out.println("  top tables  (no reads seen yet)");
      return;
    }
    out.println("  top tables  (by bytes cached; hits/misses in blocks the daemon answered)");
    for (TableStats table : all.subList(0, Math.min(tables, all.size()))) {
      printTable(out, table);
    }
    printTable(out, insight.other());
  }

  private static void printTable(PrintWriter out, TableStats table) {
    out.printf("    %10s  hit %6s (%d/%d)  %s filled, %d evictions  %s%n", Formats.bytes(table.cachedBytes()), ratio(table.hitRatio()),
        table.hitBlocks(), table.hitBlocks() + table.missBlocks(), Formats.bytes(table.filledBytes()), table.evictions(), table.prefix());
  }

  private static String ratio(double ratio) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * ratio);
  }
}
