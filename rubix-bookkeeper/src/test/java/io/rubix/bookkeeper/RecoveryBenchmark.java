package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long a BookKeeper takes to recover 100,000 cached blocks (400 objects of 250 blocks of 4 KiB,
 * committed 16 blocks at a time, so each journal holds 250 records). Logs only; run with
 * {@code ./mvnw -B -o -q test -pl rubix-bookkeeper -am -Dtest=RecoveryBenchmark -Drubix.benchmark=true -Dsurefire.failIfNoSpecifiedTests=false}
 * and read the {@code RECOVERY} lines in target/surefire-reports/io.rubix.bookkeeper.RecoveryBenchmark-output.txt.
 *
 * <p>Data files are sparse (only their last byte is written): recovery reads the journals and the
 * data files' sizes, never their bytes, so writing 400 MB would only slow the setup down.
 */
@Tag("benchmark")
@EnabledIfSystemProperty(named = "rubix.benchmark", matches = "true")
class RecoveryBenchmark {
  private static final int BLOCK_SIZE = 4096;
  private static final int OBJECTS = 400;
  private static final int BLOCKS_PER_OBJECT = 250;
  private static final int COMMIT_BLOCKS = 16;

  @TempDir
  Path cacheDir;

  @Test
  void recoveryOf100kBlocks() throws Exception {
    Path root = cacheDir.resolve(BookKeeper.ROOT);
    long setup = System.nanoTime();
    try (InProcessMetadataService service = service(root)) {
      for (int i = 0; i < OBJECTS; i++) {
        ObjectVersion version = new ObjectVersion("s3a://bucket/warehouse/t/part-" + i + ".orc", (long) BLOCKS_PER_OBJECT * BLOCK_SIZE, 1_700_000_000_000L + i, "etag-" + i);
        BlockRange grant = service.acquire(version, 0, BLOCKS_PER_OBJECT);
        try (FileChannel data = FileChannel.open(Path.of(grant.dataFile()), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
          data.write(ByteBuffer.wrap(new byte[1]), version.length() - 1);
        }
        for (int first = 0; first < BLOCKS_PER_OBJECT; first += COMMIT_BLOCKS) {
          int count = Math.min(COMMIT_BLOCKS, BLOCKS_PER_OBJECT - first);
          int[] blocks = new int[count];
          int[] crcs = new int[count];
          for (int j = 0; j < count; j++) {
            blocks[j] = first + j;
            crcs[j] = 31 * (first + j) + i;
          }
          assertThat(service.commit(grant.leaseId(), blocks, crcs)).isEqualTo(count);
        }
      }
    }
    System.out.printf("RECOVERY setup: %d blocks in %d objects written in %d ms%n", OBJECTS * BLOCKS_PER_OBJECT, OBJECTS,
        Duration.ofNanos(System.nanoTime() - setup).toMillis());

    for (int run = 1; run <= 3; run++) {
      long start = System.nanoTime();
      try (InProcessMetadataService service = service(root)) {
        long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertThat(service.counters().recoveredBlocks()).isEqualTo(OBJECTS * BLOCKS_PER_OBJECT);
        System.out.printf("RECOVERY in-process service, run %d: %d blocks in %d ms%n", run, service.counters().recoveredBlocks(), millis);
      }
    }

    Map<String, String> settings = Map.of("rubix.cache.block.size", Integer.toString(BLOCK_SIZE));
    for (int run = 1; run <= 2; run++) {
      try (BookKeeperProcess daemon = BookKeeperProcess.start(cacheDir, settings)) {
        Configuration conf = new Configuration(false);
        conf.set("rubix.cache.dirs", cacheDir.toString());
        conf.set("rubix.cluster.embedded.mode", "false");
        conf.set("rubix.network.bookkeeper.server.port", Integer.toString(daemon.port()));
        try (BookKeeperClient client = new BookKeeperClient(ClientConfig.from(conf), BLOCK_SIZE, System::nanoTime)) {
          assertThat(client.daemonStats().get("rubix_cache_recovered_blocks")).isEqualTo(OBJECTS * BLOCKS_PER_OBJECT);
        }
        System.out.printf("RECOVERY daemon process, run %d: java start to STARTED line in %d ms (its log: %s)%n", run,
            daemon.startupTime().toMillis(), daemon.diagnostics().lines().filter(l -> l.contains("Recovered")).toList());
        daemon.stop();
      }
    }
  }

  private static InProcessMetadataService service(Path root) {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK_SIZE, List.of(root), List.of(Long.MAX_VALUE))
        .leaseTimeout(Duration.ofSeconds(60)).journal(new FileMetadataJournal(BLOCK_SIZE)).build());
  }
}
