package io.rubix.benchmarks;

import io.rubix.spi.ObjectVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Splits the gap between the service and Belady's MIN ({@link ReplayBound}) on the scan-polluted and
 * recency traces of {@link EvictionReplay}: what a policy that keeps or evicts whole object versions
 * could reach, with and without the 4 KiB charged per object.
 *
 * <ul>
 *   <li><b>object MIN</b>: Belady on objects (on a miss, admit, then evict the objects read again
 *       farthest away, the newcomer included; a heuristic for objects of several sizes). An object's
 *       next read is the next read of its version unless that starts past this one's end (a scan's
 *       next chunk re-reads nothing), which is exact for these traces.
 *   <li><b>static best set</b>: in hindsight, the hot files with the most reads per charged byte,
 *       filled to the cap and kept all along (each hits all its reads but the first); on reads drawn
 *       independently, as the hot reads are, the best a policy that knows the popularities can do.
 *   <li><b>perfect LFU</b>: online, exact read counts since the start (no sketch, no aging); a missed
 *       object is admitted only if read more often than each object it evicts, lowest counts first.
 * </ul>
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.rubix.benchmarks.ReplayDiagnosis} (about 20 s).
 */
public final class ReplayDiagnosis {
  /** What the service charges per object (rubix-core's {@code DiskCharge.OBJECT_OVERHEAD}). */
  private static final long OBJECT_OVERHEAD = 4096;

  private ReplayDiagnosis() {}

  public static void main(String[] args) {
    long seed = 20261125L;
    int bs = EvictionReplay.BLOCK_SIZE;
    long cacheBytes = 64L << 20;
    int cacheBlocks = (int) (cacheBytes / bs);
    // EvictionReplay's traces, but those of scans alongside (the hot-set-2x one is the question)
    List<ReplayTrace> traces = EvictionReplay.traces(seed, cacheBlocks).stream().filter(t -> !t.name().startsWith("scans alongside")).toList();
    for (ReplayTrace trace : traces) {
      for (long overhead : new long[] {0, OBJECT_OVERHEAD}) {
        System.out.printf(Locale.ROOT, "%s overhead %d: object MIN %.3f, static best set %.3f%n", trace.name(), overhead,
            objectMin(trace, bs, cacheBytes, overhead), staticSet(trace, bs, cacheBytes, overhead));
      }
      System.out.printf(Locale.ROOT, "%s perfect LFU %.3f%n", trace.name(), perfectLfu(trace, bs, cacheBytes));
      System.out.printf(Locale.ROOT, "%s block MIN %.3f%n", trace.name(), ReplayBound.of(trace, bs, cacheBlocks).beladyHitRatio());
    }
  }

  /**
   * Belady on objects (a heuristic for variable sizes): an object is cached whole or not at all; on a
   * miss the object is admitted, and objects whose next read is farthest (the newcomer included) go
   * until it fits. Next read = the next read of a block it holds.
   */
  static double objectMin(ReplayTrace trace, int bs, long cap, long overhead) {
    List<ReplayTrace.Read> reads = trace.reads();
    int n = reads.size();
    int[] next = new int[n];
    Map<ObjectVersion, Integer> last = new HashMap<>();
    for (int i = n - 1; i >= 0; i--) {
      ReplayTrace.Read r = reads.get(i);
      Integer l = last.get(r.version());
      next[i] = l == null ? Integer.MAX_VALUE : l;
      last.put(r.version(), i);
    }
    // a read of the same version that starts past this one (a scan's next chunk) re-reads nothing held
    int[] useful = new int[n];
    for (int i = 0; i < n; i++) {
      useful[i] = next[i] != Integer.MAX_VALUE && reads.get(next[i]).first() >= reads.get(i).end() ? Integer.MAX_VALUE : next[i];
    }
    // per cached object: {next use, charged bytes, id, end of the blocks held}
    Map<ObjectVersion, long[]> cached = new HashMap<>();
    TreeSet<long[]> order = new TreeSet<>((a, b) -> a[0] != b[0] ? Long.compare(b[0], a[0]) : Long.compare(a[2], b[2]));
    long used = 0;
    long total = 0;
    long hits = 0;
    long idSeq = 0;
    for (int i = 0; i < n; i++) {
      ReplayTrace.Read r = reads.get(i);
      long bytes = 0;
      for (int b = r.first(); b < r.end(); b++) {
        bytes += r.version().blockLength(b, bs);
      }
      total += bytes;
      long[] entry = cached.get(r.version());
      if (entry != null) {
        order.remove(entry);
        // hit only if the blocks were held: hot files whole; scans never
        if (entry[3] >= r.end()) {
          hits += bytes;
        } else {
          long grow = (r.end() - entry[3]) * bs;
          entry[1] += grow;
          used += grow;
          entry[3] = r.end();
        }
        entry[0] = useful[i];
        order.add(entry);
      } else {
        entry = new long[] {useful[i], bytes + overhead, idSeq++, r.end()};
        cached.put(r.version(), entry);
        order.add(entry);
        used += entry[1];
      }
      while (used > cap) {
        long[] top = order.pollFirst();
        used -= top[1];
        cached.values().remove(top);
      }
    }
    return (double) hits / total;
  }

  /** The best static set of hot objects: ordered by reads per charged byte, filled to the cap; hits = (reads - 1) x bytes. */
  static double staticSet(ReplayTrace trace, int bs, long cap, long overhead) {
    // per hot file: {whole reads, bytes}
    Map<ObjectVersion, long[]> stats = new HashMap<>();
    long total = 0;
    for (ReplayTrace.Read r : trace.reads()) {
      long bytes = 0;
      for (int b = r.first(); b < r.end(); b++) {
        bytes += r.version().blockLength(b, bs);
      }
      total += bytes;
      if (r.first() == 0 && r.end() == r.version().blockCount(bs)) {
        long[] s = stats.computeIfAbsent(r.version(), v -> new long[2]);
        s[0]++;
        s[1] = bytes;
      }
    }
    List<long[]> list = new ArrayList<>(stats.values());
    list.sort((a, b) -> Double.compare((double) (b[0] - 1) * b[1] / (b[1] + overhead), (double) (a[0] - 1) * a[1] / (a[1] + overhead)));
    long used = 0;
    long hits = 0;
    for (long[] s : list) {
      if (used + s[1] + overhead <= cap) {
        used += s[1] + overhead;
        hits += (s[0] - 1) * s[1];
      }
    }
    return (double) hits / total;
  }


  /** Online: exact read counts since the start; a missed object is admitted only if it was read more often than every object it evicts (lowest counts first). */
  static double perfectLfu(ReplayTrace trace, int bs, long cap) {
    // per object: {reads, id, end of the blocks held (-1: not cached), charged bytes}
    Map<ObjectVersion, long[]> counts = new HashMap<>();
    TreeSet<long[]> order = new TreeSet<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    long used = 0;
    long total = 0;
    long hits = 0;
    long ids = 0;
    for (ReplayTrace.Read r : trace.reads()) {
      long bytes = (long) (r.end() - r.first()) * bs;
      total += bytes;
      long[] e = counts.get(r.version());
      if (e == null) {
        e = new long[] {0, ids++, -1, 0};
        counts.put(r.version(), e);
      }
      boolean cachedNow = e[2] >= 0;
      if (cachedNow) {
        order.remove(e);
      }
      if (r.first() == 0 || !cachedNow) {
        // a scan's later chunks do not count again: scan objects look as rare as they are
        e[0]++;
      }
      if (cachedNow && e[2] >= r.end()) {
        hits += bytes;
        order.add(e);
        continue;
      }
      long need = (cachedNow ? 0 : OBJECT_OVERHEAD) + (long) (r.end() - Math.max(r.first(), (int) Math.max(e[2], 0))) * bs;
      List<long[]> victims = new ArrayList<>();
      long free = cap - used;
      for (long[] v : order) {
        if (free >= need || v[0] >= e[0]) {
          break;
        }
        victims.add(v);
        free += v[3];
      }
      if (free >= need) {
        for (long[] v : victims) {
          order.remove(v);
          used -= v[3];
          v[2] = -1;
          v[3] = 0;
        }
        used += need;
        e[3] += need;
        e[2] = r.end();
        order.add(e);
      } else if (cachedNow) {
        order.add(e);
      }
    }
    return (double) hits / total;
  }
}
