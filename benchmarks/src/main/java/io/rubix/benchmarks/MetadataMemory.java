package io.rubix.benchmarks;

import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Heap retained by an {@link InProcessMetadataService} (as the BookKeeper builds it: persistent
 * {@link FileMetadataJournal}, one cache directory, 1 MiB blocks) holding published blocks: used heap
 * after full GCs with the service reachable, minus used heap after full GCs before it was built,
 * through {@link MemoryMXBean}. Blocks are published the way the read path does it: acquire and
 * commit runs of {@value #BATCH} blocks (metadata only; no data is written).
 *
 * <p>Not a JMH benchmark: JMH measures time, this measures retained bytes. Run in its own JVM:
 * {@code java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar io.rubix.benchmarks.MetadataMemory
 * [objects:blocksPerObject ...]} (default {@code 1000:1000 10000:100}); the two default shapes hold
 * the same 1,000,000 blocks in 1,000 and 10,000 objects, which separates the per-object cost from
 * the per-block cost.
 */
public final class MetadataMemory {
  static final int BLOCK_SIZE = 1 << 20;
  static final int BATCH = 16;

  private MetadataMemory() {}

  public static void main(String[] args) throws Exception {
    List<String> shapes = args.length == 0 ? List.of("1000:1000", "10000:100") : List.of(args);
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.out.printf(Locale.ROOT, "JVM %s %s, max heap %d MiB, GC %s%n", System.getProperty("java.vm.name"), System.getProperty("java.version"),
        Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getGarbageCollectorMXBeans().stream().map(gc -> gc.getName()).toList());
    System.out.println();
    System.out.println("| objects | blocks/object | blocks | retained MiB | bytes/block | publish s |");
    System.out.println("|---|---|---|---|---|---|");
    double[][] results = new double[shapes.size()][];
    for (int i = 0; i < shapes.size(); i++) {
      String[] parts = shapes.get(i).split(":");
      int objects = Integer.parseInt(parts[0]);
      int blocksPerObject = Integer.parseInt(parts[1]);
      Path dir = BenchFiles.newScratchDir("rubix-metadata-memory-");
      try {
        long before = usedAfterGc(memory);
        long start = System.nanoTime();
        InProcessMetadataService service = build(dir, objects, blocksPerObject);
        double seconds = (System.nanoTime() - start) / 1e9;
        long after = usedAfterGc(memory);
        long blocks = (long) objects * blocksPerObject;
        long retained = after - before;
        results[i] = new double[] {objects, blocks, retained};
        System.out.printf(Locale.ROOT, "| %,d | %,d | %,d | %.1f | %.1f | %.1f |%n", objects, blocksPerObject, blocks, retained / 1048576.0,
            (double) retained / blocks, seconds);
        Reference.reachabilityFence(service);
        service.close();
      } finally {
        BenchFiles.deleteRecursively(dir);
      }
    }
    if (results.length == 2 && results[0][1] == results[1][1] && results[0][0] != results[1][0]) {
      // same blocks, different object counts: retained = objects * perObject + blocks * perBlock
      double perObject = (results[1][2] - results[0][2]) / (results[1][0] - results[0][0]);
      double perBlock = (results[0][2] - results[0][0] * perObject) / results[0][1];
      System.out.printf(Locale.ROOT, "%nper object (fit): %.0f bytes; per block without the object cost (fit): %.1f bytes%n", perObject, perBlock);
    }
  }

  static InProcessMetadataService build(Path dir, int objects, int blocksPerObject) throws IOException {
    Path root = dir.resolve("bookkeeper");
    Files.createDirectories(root);
    InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK_SIZE, List.of(root), List.of(Long.MAX_VALUE))
        .leaseTimeout(Duration.ofMinutes(10)).journal(new FileMetadataJournal(BLOCK_SIZE)).build());
    for (int o = 0; o < objects; o++) {
      // paths and ETags of realistic length: a table's data files under a warehouse prefix
      ObjectVersion version = new ObjectVersion(String.format(Locale.ROOT, "s3a://warehouse-bucket/warehouse/sales.db/orders/dt=2026-11-%02d/part-%05d-1c9e6f0a.orc",
          1 + o % 28, o), (long) blocksPerObject * BLOCK_SIZE, 1_700_000_000_000L + o, String.format(Locale.ROOT, "\"%032x\"", o * 0x9e3779b97f4a7c15L));
      for (int first = 0; first < blocksPerObject; first += BATCH) {
        BookKeeperBench.publish(service, version, first, Math.min(blocksPerObject, first + BATCH));
      }
    }
    return service;
  }

  private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
