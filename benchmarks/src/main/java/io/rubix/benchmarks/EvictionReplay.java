package io.rubix.benchmarks;

import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.MetadataJournal;
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
import java.util.List;
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
    // hot files of 1-16 blocks (8.5 on average) read by a Zipf 0.9 popularity; every 3,000 hot reads, a table of 1.5x the cache is scanned;
    // the hot set holds about 0.5x the cache in one trace (dimension tables that fit), about 2x in the other
    int smallHotSet = cacheBlocks / 2 * 2 / 17;
    ReplayTrace pollutedSmall = ReplayTrace.scanPolluted("scan-polluted, hot set 0.5x", seed, BLOCK_SIZE, smallHotSet, 16, 0.9, 40_000, 3_000,
        cacheBlocks * 3 / 2, 512, 16);
    ReplayTrace pollutedLarge = ReplayTrace.scanPolluted("scan-polluted, hot set 2x", seed, BLOCK_SIZE, smallHotSet * 4, 16, 0.9, 40_000, 3_000,
        cacheBlocks * 3 / 2, 512, 16);
    // a working set of 150 files of 1-32 blocks (about 0.6x the cache), sliding by one file every 40 reads
    ReplayTrace recency = ReplayTrace.slidingWorkingSet(seed, BLOCK_SIZE, 150, 32, 40, 40_000);
    System.out.printf(Locale.ROOT, "Eviction replay: seed %d, cache %d MiB (one directory), blocks of %d KiB%n%n", seed, cacheBytes >> 20,
        BLOCK_SIZE >> 10);
    System.out.println("| trace | policy | requests | MiB read | byte hit ratio | MiB from source | vs lru | evictions | admission rejections | s |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (ReplayTrace trace : List.of(pollutedSmall, pollutedLarge, recency)) {
      double lruRatio = 0;
      for (EvictionPolicy policy : EvictionPolicy.values()) {
        Result result = replay(trace, policy, cacheBytes);
        if (policy == EvictionPolicy.LRU) {
          lruRatio = result.hitRatio();
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %,d | %,.1f | %.3f | %,.1f | %.2fx | %,d | %,d | %.1f |%n", trace.name(), policy.configName(),
            trace.reads().size(), result.bytesRead() / 1048576.0, result.hitRatio(), result.sourceBytes() / 1048576.0,
            result.hitRatio() / lruRatio, result.evictions(), result.rejections(), result.seconds());
      }
    }
  }

  record Result(long bytesRead, long hitBytes, long sourceBytes, long evictions, long rejections, double seconds) {
    double hitRatio() {
      return bytesRead == 0 ? 0 : (double) hitBytes / bytesRead;
    }
  }

  static Result replay(ReplayTrace trace, EvictionPolicy policy, long cacheBytes) throws IOException {
    Path dir = BenchFiles.newScratchDir("rubix-eviction-replay-");
    long start = System.nanoTime();
    try (InProcessMetadataService service = new InProcessMetadataService(BLOCK_SIZE, List.of(dir), List.of(cacheBytes), Duration.ofMinutes(10),
        System::nanoTime, MetadataJournal.NONE, InProcessMetadataService.DEFAULT_MAX_OBJECTS, policy)) {
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
      return new Result(read, hits, source, usage.evictions(), service.admissionRejections(), (System.nanoTime() - start) / 1e9);
    } finally {
      BenchFiles.deleteRecursively(dir);
    }
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
