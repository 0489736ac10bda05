package io.rubix.bookkeeper.cli;

import io.rubix.bookkeeper.metrics.RuleMetrics;
import io.rubix.core.client.UnknownCallException;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import io.rubix.spi.thrift.TServiceInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the daemon answered at one moment: who it is, its space use, its counters, its largest files and
 * its per-table counters and working-set estimate ({@code insight} is empty from a daemon older than them).
 */
record DaemonSnapshot(String address, TServiceInfo info, CacheUsage usage, Map<String, Long> counters, List<CachedFile> topFiles,
    Optional<CacheInsightReport> insight, long takenAtMillis) {

  static DaemonSnapshot take(DaemonOptions.Daemon daemon, int top) throws IOException {
    CacheUsage usage = daemon.client().usage();
    Map<String, Long> counters = new TreeMap<>(daemon.client().daemonStats());
    List<CachedFile> files = top > 0 ? daemon.client().topFiles(top) : List.of();
    Optional<CacheInsightReport> insight;
    try {
      insight = Optional.of(daemon.client().insight());
    } catch (UnknownCallException olderDaemon) {
      insight = Optional.empty();
    }
    return new DaemonSnapshot(daemon.address(), daemon.info(), usage, counters, files, insight, System.currentTimeMillis());
  }

  long uptimeMillis() {
    return Math.max(0, takenAtMillis - info.getStartedAtMillis());
  }

  long capacityBytes() {
    return usage.disks().stream().mapToLong(CacheUsage.Disk::capacityBytes).sum();
  }

  long reservedBytes() {
    return usage.disks().stream().mapToLong(CacheUsage.Disk::reservedBytes).sum();
  }

  int objects() {
    return usage.disks().stream().mapToInt(CacheUsage.Disk::objects).sum();
  }

  /**
   * Per path rule with a quota, in name order: its {@code rule.<name>.<metric>} counters by metric
   * ({@code quota_bytes}, {@code used_bytes}, {@code objects}, {@code evictions}, {@code denials}).
   */
  Map<String, Map<String, Long>> rules() {
    Map<String, Map<String, Long>> rules = new TreeMap<>();
    counters.forEach((name, value) -> {
      if (name.startsWith(RuleMetrics.PREFIX)) {
        int dot = name.lastIndexOf('.');
        if (dot > RuleMetrics.PREFIX.length()) {
          rules.computeIfAbsent(name.substring(RuleMetrics.PREFIX.length(), dot), rule -> new LinkedHashMap<>()).put(name.substring(dot + 1), value);
        }
      }
    });
    return rules;
  }

  /** The snapshot as nested maps and lists, in the order {@code rubix stats --json} writes them. */
  Map<String, Object> toMap() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("address", address);
    root.put("nodeId", info.getNodeId());
    root.put("protocolVersion", info.getProtocolVersion());
    root.put("blockSize", info.getBlockSize());
    root.put("startedAtMillis", info.getStartedAtMillis());
    root.put("uptimeMillis", uptimeMillis());
    Map<String, Object> cache = new LinkedHashMap<>();
    cache.put("capacityBytes", capacityBytes());
    cache.put("usedBytes", usage.usedBytes());
    cache.put("reservedBytes", reservedBytes());
    cache.put("objects", objects());
    cache.put("evictions", usage.evictions());
    cache.put("admissionRejections", usage.admissionRejections());
    List<Object> disks = new ArrayList<>();
    for (CacheUsage.Disk disk : usage.disks()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("directory", disk.directory());
      entry.put("capacityBytes", disk.capacityBytes());
      entry.put("usedBytes", disk.usedBytes());
      entry.put("reservedBytes", disk.reservedBytes());
      entry.put("objects", disk.objects());
      disks.add(entry);
    }
    cache.put("disks", disks);
    List<Object> rules = new ArrayList<>();
    rules().forEach((rule, metrics) -> {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("rule", rule);
      entry.put("quotaBytes", metrics.getOrDefault("quota_bytes", 0L));
      entry.put("usedBytes", metrics.getOrDefault("used_bytes", 0L));
      entry.put("objects", metrics.getOrDefault("objects", 0L));
      entry.put("evictions", metrics.getOrDefault("evictions", 0L));
      entry.put("denials", metrics.getOrDefault("denials", 0L));
      rules.add(entry);
    });
    cache.put("rules", rules);
    cache.put("ruleExcludedRequests", counters.getOrDefault("rubix_rule_excluded_requests", 0L));
    root.put("cache", cache);
    root.put("counters", counters);
    if (!topFiles.isEmpty()) {
      List<Object> files = new ArrayList<>();
      for (CachedFile file : topFiles) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("path", file.version().path());
        entry.put("length", file.version().length());
        entry.put("modificationTime", file.version().modificationTime());
        entry.put("etag", file.version().etag());
        entry.put("chargedBytes", file.chargedBytes());
        entry.put("cachedBlocks", file.cachedBlocks());
        entry.put("blocks", file.blocks());
        entry.put("dataFile", file.dataFile());
        files.add(entry);
      }
      root.put("topFiles", files);
    }
    insight.ifPresent(report -> {
      List<Object> tables = new ArrayList<>();
      report.tables().forEach(table -> tables.add(toMap(table)));
      root.put("tables", tables);
      root.put("otherTables", toMap(report.other()));
      root.put("workingSet", toMap(report.workingSet()));
    });
    return root;
  }

  private static Map<String, Object> toMap(TableStats table) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("prefix", table.prefix());
    entry.put("hitBlocks", table.hitBlocks());
    entry.put("missBlocks", table.missBlocks());
    entry.put("cachedBytes", table.cachedBytes());
    entry.put("grantedBytes", table.grantedBytes());
    entry.put("filledBytes", table.filledBytes());
    entry.put("evictions", table.evictions());
    entry.put("weightError", table.weightError());
    return entry;
  }

  private static Map<String, Object> toMap(WorkingSetEstimate w) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("windowSeconds", w.windowMillis() / 1000);
    entry.put("distinctBytes", w.distinctBytes());
    entry.put("accessedBytes", w.accessedBytes());
    entry.put("capacityBytes", w.capacityBytes());
    entry.put("sampleRate", w.sampleRate());
    entry.put("observedHitRatio", w.observedHitRatio());
    Map<String, Object> shadow = new LinkedHashMap<>();
    // null while unknown (JSON has no NaN)
    shadow.put("0.5x", w.shadowKnown() ? w.shadowHitRatioHalf() : null);
    shadow.put("1x", w.shadowKnown() ? w.shadowHitRatioOne() : null);
    shadow.put("2x", w.shadowKnown() ? w.shadowHitRatioDouble() : null);
    entry.put("shadowHitRatio", shadow);
    entry.put("sampledAccesses", w.sampledAccesses());
    return entry;
  }
}
