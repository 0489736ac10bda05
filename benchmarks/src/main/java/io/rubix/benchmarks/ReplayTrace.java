package io.rubix.benchmarks;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A seeded sequence of reads as the metadata service sees them: each is one request of a reader for
 * blocks {@code [first, end)} of an object version. The same seed gives the same trace.
 */
record ReplayTrace(String name, List<Read> reads) {
  ReplayTrace {
    requireNonNull(name, "name is null");
    reads = List.copyOf(reads);
  }

  /** One reader's request for blocks {@code [first, end)} of {@code version}. */
  record Read(ObjectVersion version, int first, int end) {}

  /**
   * Hot files read again and again, chosen by a Zipf distribution, interleaved with one-pass scans of
   * large tables that each hold more than the cache: {@code hotReads} reads of {@code hotFiles} files
   * of 1 to {@code maxHotBlocks} blocks (popularity Zipf with exponent {@code zipf}), and every
   * {@code scanEvery} hot reads (or when the last one ends, if later) a new table of
   * {@code scanBlocks} blocks in files of {@code scanFileBlocks} blocks starts, read front to back in
   * {@code chunkBlocks}-block requests, one request after each hot read while it lasts (so scans
   * overlap the hot reads).
   */
  static ReplayTrace scanPolluted(String name, long seed, int blockSize, int hotFiles, int maxHotBlocks, double zipf, int hotReads, int scanEvery,
      int scanBlocks, int scanFileBlocks, int chunkBlocks) {
    SplittableRandom random = new SplittableRandom(seed);
    List<ObjectVersion> hot = hotFiles(random, blockSize, hotFiles, maxHotBlocks);
    // the file at index r is chosen with probability proportional to 1 / (r + 1)^zipf (sizes are random, independent of rank)
    double[] cumulative = zipfCumulative(hotFiles, zipf);
    double sum = cumulative[hotFiles - 1];
    List<Read> reads = new ArrayList<>();
    List<Read> scan = new ArrayList<>();
    int scanAt = 0;
    int tables = 0;
    int nextScan = scanEvery;
    for (int i = 0; i < hotReads; i++) {
      if (scanAt >= scan.size() && i >= nextScan) {
        scan = scanReads(tables++, blockSize, scanBlocks, scanFileBlocks, chunkBlocks);
        scanAt = 0;
        nextScan = i + scanEvery;
      }
      ObjectVersion file = hot.get(rank(cumulative, random.nextDouble() * sum));
      reads.add(new Read(file, 0, file.blockCount(blockSize)));
      if (scanAt < scan.size()) {
        reads.add(scan.get(scanAt++));
      }
    }
    return new ReplayTrace(name, reads);
  }

  /**
   * Issue 12's scenario as stated ("a Zipf-distributed set of hot files read repeatedly interleaved with
   * large one-pass scans larger than the cache"): dashboards reading hot files while a backfill scans
   * cold tables alongside them, all the time. {@code hotReads} reads of {@code hotFiles} files of 1 to
   * {@code maxHotBlocks} blocks (popularity Zipf with exponent {@code zipf}); the scans are tables of
   * {@code scanBlocks} blocks in files of {@code scanFileBlocks} blocks, one after the other with no
   * pause, read front to back in {@code chunkBlocks}-block requests placed between the hot reads so that
   * the scans read {@code scanShare} of all bytes read (a hot read of k blocks earns the scan
   * k * scanShare / (1 - scanShare) blocks; a request is issued for each full chunk earned).
   */
  static ReplayTrace scanAlongside(String name, long seed, int blockSize, int hotFiles, int maxHotBlocks, double zipf, int hotReads,
      double scanShare, int scanBlocks, int scanFileBlocks, int chunkBlocks) {
    if (!(scanShare >= 0 && scanShare < 1)) {
      throw new IllegalArgumentException("scanShare must be in [0, 1): " + scanShare);
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<ObjectVersion> hot = hotFiles(random, blockSize, hotFiles, maxHotBlocks);
    double[] cumulative = zipfCumulative(hotFiles, zipf);
    double sum = cumulative[hotFiles - 1];
    List<Read> reads = new ArrayList<>();
    List<Read> scan = List.of();
    int scanAt = 0;
    int tables = 0;
    double credit = 0;
    for (int i = 0; i < hotReads; i++) {
      ObjectVersion file = hot.get(rank(cumulative, random.nextDouble() * sum));
      int blocks = file.blockCount(blockSize);
      reads.add(new Read(file, 0, blocks));
      credit += blocks * scanShare / (1 - scanShare);
      while (credit >= chunkBlocks) {
        if (scanAt >= scan.size()) {
          scan = scanReads(tables++, blockSize, scanBlocks, scanFileBlocks, chunkBlocks);
          scanAt = 0;
        }
        Read chunk = scan.get(scanAt++);
        reads.add(chunk);
        credit -= chunk.end() - chunk.first();
      }
    }
    return new ReplayTrace(name, reads);
  }

  private static List<ObjectVersion> hotFiles(SplittableRandom random, int blockSize, int hotFiles, int maxHotBlocks) {
    List<ObjectVersion> hot = new ArrayList<>();
    for (int i = 0; i < hotFiles; i++) {
      int blocks = 1 + random.nextInt(maxHotBlocks);
      hot.add(version(String.format(Locale.ROOT, "s3a://lake/warehouse/dim_%d/part-0.orc", i), (long) blocks * blockSize));
    }
    return hot;
  }

  /** Cumulative weights of ranks 0..n-1: rank r weighs 1 / (r + 1)^zipf. */
  private static double[] zipfCumulative(int n, double zipf) {
    double[] cumulative = new double[n];
    double sum = 0;
    for (int r = 0; r < n; r++) {
      sum += 1 / Math.pow(r + 1, zipf);
      cumulative[r] = sum;
    }
    return cumulative;
  }

  /**
   * Pure recency: a working set of {@code window} consecutive files of 1 to {@code maxBlocks} blocks
   * that slides by one file every {@code slideEvery} reads; each read is of a file of the current
   * working set chosen uniformly, read whole. A file is read about {@code slideEvery} times while in
   * the working set and never again after it.
   */
  static ReplayTrace slidingWorkingSet(long seed, int blockSize, int window, int maxBlocks, int slideEvery, int reads) {
    SplittableRandom random = new SplittableRandom(seed);
    List<ObjectVersion> files = new ArrayList<>();
    List<Read> trace = new ArrayList<>();
    for (int i = 0; i < reads; i++) {
      int newest = window + i / slideEvery;
      while (files.size() < newest) {
        int blocks = 1 + random.nextInt(maxBlocks);
        files.add(version(String.format(Locale.ROOT, "s3a://lake/events/hour=%d/part-0.orc", files.size()), (long) blocks * blockSize));
      }
      ObjectVersion file = files.get(newest - window + random.nextInt(window));
      trace.add(new Read(file, 0, file.blockCount(blockSize)));
    }
    return new ReplayTrace("sliding-working-set", trace);
  }

  private static List<Read> scanReads(int table, int blockSize, int scanBlocks, int fileBlocks, int chunkBlocks) {
    List<Read> reads = new ArrayList<>();
    for (int file = 0; file * fileBlocks < scanBlocks; file++) {
      int blocks = Math.min(fileBlocks, scanBlocks - file * fileBlocks);
      ObjectVersion version = version(String.format(Locale.ROOT, "s3a://lake/warehouse/fact_backfill_%d/part-%05d.orc", table, file),
          (long) blocks * blockSize);
      for (int first = 0; first < blocks; first += chunkBlocks) {
        reads.add(new Read(version, first, Math.min(blocks, first + chunkBlocks)));
      }
    }
    return reads;
  }

  private static int rank(double[] cumulative, double point) {
    int low = 0;
    int high = cumulative.length - 1;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (cumulative[mid] < point) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  private static ObjectVersion version(String path, long length) {
    return new ObjectVersion(path, length, 1_700_000_000_000L, "\"" + Integer.toHexString(path.hashCode()) + "\"");
  }

  /** Bytes the trace reads. */
  long bytes(int blockSize) {
    long bytes = 0;
    for (Read read : reads) {
      for (int b = read.first(); b < read.end(); b++) {
        bytes += read.version().blockLength(b, blockSize);
      }
    }
    return bytes;
  }
}
