package io.rubix.benchmarks;

import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheUsage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Replays seeded read traces against the real {@link InProcessMetadataService} (real grants, a real
 * cache directory in a scratch folder, the same cap) under each eviction policy, and prints byte hit
 * ratio and bytes read from the source as a Markdown table.
 *
 * <p>Each request of a trace is served as a reader serves it: one status call; if some blocks are
 * not cached, one acquire; granted blocks are "fetched" (counted as source bytes), written to the
 * cache file with their CRC32C and committed (the service reads them back and checks them); blocks
 * denied are read from the source uncached. Single-threaded, so the hit ratio depends only on the
 * trace and the policy.
 *
 * <p>The traces ({@link ReplayTrace}): two scan-polluted ones (a Zipf 0.9 hot set of 0.5x or 2x the
 * cache; every 3,000 hot reads a table of 1.5x the cache scanned once), issue 12's scenario as stated
 * (the 0.5x hot set with tables of 1.5x scanned one after the other all the time, alongside the hot
 * reads: the scans read half the bytes; a quarter and three quarters are printed too, since the result
 * depends on that share more than on anything else) and a sliding working set (pure recency). The share
 * of one half was chosen before any run: neither the dashboards nor the backfill dominate.
 *
 * <p>For each trace it also prints what no policy can beat ({@link ReplayBound}): Belady's MIN on
 * blocks of the same cache, and the share of bytes read for the first time.
 *
 * <p>Not a JMH benchmark (it measures ratios, not time). Run:
 * {@code java -cp benchmarks/target/benchmarks.jar io.rubix.benchmarks.EvictionReplay [--seed N] [--cache-mb N]}.
 */
public final class EvictionReplay {
  static final int BLOCK_SIZE = 16 << 10;

  private EvictionReplay() {}

  public static void main(String[] args) throws Exception {
    long seed = 20261125L;
    long cacheBytes = 64L << 20;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--cache-mb" -> cacheBytes = Long.parseLong(args[++i]) << 20;
        default -> throw new IllegalArgumentException("Unknown argument " + args[i] + "; allowed: --seed N, --cache-mb N");
      }
    }
    int cacheBlocks = (int) (cacheBytes / BLOCK_SIZE);
    List<ReplayTrace> traces = traces(seed, cacheBlocks);
    System.out.printf(Locale.ROOT, "Eviction replay: seed %d, cache %d MiB (one directory), blocks of %d KiB%n%n", seed, cacheBytes >> 20,
        BLOCK_SIZE >> 10);
    System.out.println("| trace | policy | requests | MiB read | byte hit ratio | MiB from source | vs lru | evictions | admission rejections"
        + " | window at end | s |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    Map<String, Double> lruRatios = new HashMap<>();
    for (ReplayTrace trace : traces) {
      double lruRatio = 0;
      for (EvictionPolicy policy : EvictionPolicy.values()) {
        Result result = replay(trace, policy, cacheBytes);
        if (policy == EvictionPolicy.LRU) {
          lruRatio = result.hitRatio();
          lruRatios.put(trace.name(), lruRatio);
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %,d | %,.1f | %.3f | %,.1f | %.3fx | %,d | %,d | %.0f %% | %.1f |%n", trace.name(),
            policy.configName(), trace.reads().size(), result.bytesRead() / 1048576.0, result.hitRatio(), result.sourceBytes() / 1048576.0,
            result.hitRatio() / lruRatio, result.evictions(), result.rejections(), 100 * result.window(), result.seconds());
      }
    }
    System.out.printf(Locale.ROOT, "%nWhat no policy can beat (blocks of the same cache, no per-object charge):%n%n");
    System.out.println("| trace | Belady MIN byte hit ratio | MIN vs lru | bytes read for the first time |");
    System.out.println("|---|---:|---:|---:|");
    for (ReplayTrace trace : traces) {
      ReplayBound bound = ReplayBound.of(trace, BLOCK_SIZE, cacheBlocks);
      System.out.printf(Locale.ROOT, "| %s | %.3f | %.2fx | %.1f %% |%n", trace.name(), bound.beladyHitRatio(),
          bound.beladyHitRatio() / lruRatios.get(trace.name()), 100 * bound.firstReadShare());
    }
  }

  record Result(long bytesRead, long hitBytes, long sourceBytes, long evictions, long rejections, double window, double seconds) {
    double hitRatio() {
      return bytesRead == 0 ? 0 : (double) hitBytes / bytesRead;
    }
  }

  static Result replay(ReplayTrace trace, EvictionPolicy policy, long cacheBytes) throws IOException {
    Path dir = BenchFiles.newScratchDir("rubix-eviction-replay-");
    long start = System.nanoTime();
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK_SIZE, List.of(dir), List.of(cacheBytes))
        .leaseTimeout(Duration.ofMinutes(10)).evictionPolicy(policy).build())) {
      long read = 0;
      long hits = 0;
      long source = 0;
      for (ReplayTrace.Read request : trace.reads()) {
        BlockRange status = service.status(request.version(), request.first(), request.end());
        BlockRange lease = status.allCached(request.first(), request.end()) ? status
            : service.acquire(request.version(), request.first(), request.end());
        List<Integer> granted = new ArrayList<>();
        for (int b = request.first(); b < request.end(); b++) {
          int length = request.version().blockLength(b, BLOCK_SIZE);
          read += length;
          BlockState state = lease.state(b);
          if (state == BlockState.CACHED) {
            hits += length;
          } else {
            source += length;
            if (state == BlockState.GRANTED) {
              granted.add(b);
            }
          }
        }
        if (!granted.isEmpty()) {
          commit(service, lease, granted.stream().mapToInt(Integer::intValue).toArray());
        }
        checkCap(service.usage(), trace, policy);
      }
      CacheUsage usage = service.usage();
      return new Result(read, hits, source, usage.evictions(), service.counters().admissionRejections(), service.counters().evictionWindowShare(),
          (System.nanoTime() - start) / 1e9);
    } finally {
      BenchFiles.deleteRecursively(dir);
    }
  }

  /** The replay's traces, seeded with {@code seed}, for a cache of {@code cacheBlocks} blocks of {@link #BLOCK_SIZE}. */
  static List<ReplayTrace> traces(long seed, int cacheBlocks) {
    // hot files of 1-16 blocks (8.5 on average) read by a Zipf 0.9 popularity; every 3,000 hot reads, a table of 1.5x the cache is scanned;
    // the hot set holds about 0.5x the cache in one trace (dimension tables that fit), about 2x in the other
    int smallHotSet = cacheBlocks / 2 * 2 / 17;
    List<ReplayTrace> traces = new ArrayList<>();
    traces.add(ReplayTrace.scanPolluted("scan-polluted, hot set 0.5x", seed, BLOCK_SIZE, smallHotSet, 16, 0.9, 40_000, 3_000,
        cacheBlocks * 3 / 2, 512, 16));
    traces.add(ReplayTrace.scanPolluted("scan-polluted, hot set 2x", seed, BLOCK_SIZE, smallHotSet * 4, 16, 0.9, 40_000, 3_000,
        cacheBlocks * 3 / 2, 512, 16));
    // issue 12's scenario: the same hot set of 0.5x and the same tables of 1.5x, but scanned one after the other all the time, alongside the
    // hot reads, reading half the bytes (then a quarter and three quarters, to show how the result depends on that share)
    for (double share : new double[] {0.5, 0.25, 0.75}) {
      traces.add(ReplayTrace.scanAlongside(String.format(Locale.ROOT, "scans alongside, %.0f %% of bytes", 100 * share), seed, BLOCK_SIZE,
          smallHotSet, 16, 0.9, 40_000, share, cacheBlocks * 3 / 2, 512, 16));
    }
    // a working set of 150 files of 1-32 blocks (about 0.6x the cache), sliding by one file every 40 reads
    traces.add(ReplayTrace.slidingWorkingSet(seed, BLOCK_SIZE, 150, 32, 40, 40_000));
    return traces;
  }

  /** Writes {@code blocks} of {@code lease} into its cache file as a reader does, and commits them. */
  private static void commit(InProcessMetadataService service, BlockRange lease, int[] blocks) throws IOException {
    int[] crcs = new int[blocks.length];
    try (FileChannel channel = FileChannel.open(Path.of(lease.dataFile()), StandardOpenOption.WRITE)) {
      for (int i = 0; i < blocks.length; i++) {
        byte[] bytes = new byte[lease.version().blockLength(blocks[i], BLOCK_SIZE)];
        Arrays.fill(bytes, (byte) (blocks[i] % 255 + 1));
        channel.write(ByteBuffer.wrap(bytes), (long) blocks[i] * BLOCK_SIZE);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        crcs[i] = (int) crc.getValue();
      }
    }
    int published = service.commit(lease.leaseId(), blocks, crcs);
    if (published != blocks.length) {
      throw new IllegalStateException("Published " + published + " of " + blocks.length + " blocks of " + lease.version());
    }
  }

  private static void checkCap(CacheUsage usage, ReplayTrace trace, EvictionPolicy policy) {
    for (CacheUsage.Disk disk : usage.disks()) {
      if (disk.usedBytes() + disk.reservedBytes() > disk.capacityBytes()) {
        throw new IllegalStateException(trace.name() + " under " + policy.configName() + " exceeded the cap: " + disk);
      }
    }
  }
}
