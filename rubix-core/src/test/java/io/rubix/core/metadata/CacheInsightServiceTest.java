package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.CacheRules;
import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.config.InsightConfig;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CacheMetadataService;
import io.rubix.spi.metadata.TableStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the in-process service reports per table: hits, misses, grants, fills, bytes held and evictions, counted at its calls. */
class CacheInsightServiceTest {
  private static final int BLOCK = 4096;

  @TempDir
  Path root;

  private final AtomicLong clock = new AtomicLong();

  @Test
  void countsPerTableAtTheServiceCalls() throws Exception {
    // room for 8 blocks and the objects' overhead: the third object evicts the first
    long capacity = 8L * BLOCK + 3 * DiskCharge.OBJECT_OVERHEAD;
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(capacity))
        .leaseTimeout(Duration.ofSeconds(60)).nanoClock(clock::get).maxObjects(100)
        .insight(new InsightConfig(3, 50, Duration.ofMinutes(1), 1024)).build())) {
      ObjectVersion orders = new ObjectVersion("s3a://lake/db/orders/part-0", 4L * BLOCK - 100, 1, "e1");
      ObjectVersion items = new ObjectVersion("s3a://lake/db/items/dt=1/part-0", 3L * BLOCK, 1, "e2");
      ObjectVersion orders2 = new ObjectVersion("s3a://lake/db/orders/part-1", 3L * BLOCK, 1, "e3");

      assertThat(service.status(orders, 0, 4).allCached(0, 4)).isFalse(); // missing in a status: not an access
      BlockRange granted = service.acquire(orders, 0, 4); // 4 misses, granted
      assertThat(TestBlocks.commit(service, granted, BLOCK, 0, 1, 2, 3)).isEqualTo(4);
      assertThat(service.status(orders, 0, 4).allCached(0, 4)).isTrue(); // 4 hits
      BlockRange itemsGrant = service.acquire(items, 0, 3);
      assertThat(TestBlocks.commit(service, itemsGrant, BLOCK, 0, 1)).isEqualTo(2); // block 2 granted, never written
      service.abort(itemsGrant.leaseId(), new int[] {2}, false);
      service.status(items, 0, 3); // 2 hits
      clock.addAndGet(1_000_000);
      service.status(items, 0, 1); // items read more recently: orders is the least recently used
      BlockRange orders2Grant = service.acquire(orders2, 0, 3); // evicts orders to make room
      assertThat(TestBlocks.commit(service, orders2Grant, BLOCK, 0, 1, 2)).isEqualTo(3);

      CacheInsightReport report = service.insight();
      Map<String, TableStats> tables = report.tables().stream().collect(Collectors.toMap(TableStats::prefix, Function.identity()));
      assertThat(tables).containsOnlyKeys("s3a://lake/db/orders", "s3a://lake/db/items");
      assertThat(tables.get("s3a://lake/db/orders")).isEqualTo(
          new TableStats("s3a://lake/db/orders", 4, 7, 3L * BLOCK, 7L * BLOCK - 100, 7L * BLOCK - 100, 1, 0));
      assertThat(tables.get("s3a://lake/db/items")).isEqualTo(
          new TableStats("s3a://lake/db/items", 3, 3, 2L * BLOCK, 3L * BLOCK, 2L * BLOCK, 0, 0));
      assertThat(report.other()).isEqualTo(new TableStats(TableStats.OTHER, 0, 0, 0, 0, 0, 0, 0));
      assertThat(report.workingSet().distinctBytes()).isEqualTo(10L * BLOCK - 100);
      assertThat(report.workingSet().accessedBytes()).isEqualTo(17L * BLOCK - 200);
      assertThat(report.workingSet().observedHitRatio()).isEqualTo((7.0 * BLOCK - 100) / (17.0 * BLOCK - 200));
      assertThat(report.workingSet().capacityBytes()).isEqualTo(capacity);
    }
  }

  @Test
  void readsAreCountedWhenReportedOrWhenAStatusCallerDoesNotReport() throws Exception {
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(64L * BLOCK))
        .leaseTimeout(Duration.ofSeconds(60)).nanoClock(clock::get).maxObjects(100)
        .insight(new InsightConfig(3, 50, Duration.ofMinutes(1), 1024)).build())) {
      ObjectVersion orders = new ObjectVersion("s3a://lake/db/orders/part-0", 8L * BLOCK, 1, "e1");
      BlockRange granted = service.acquire(orders, 0, 8); // 8 misses
      assertThat(TestBlocks.commit(service, granted, BLOCK, 0, 1, 2, 3, 4, 5, 6, 7)).isEqualTo(8);

      assertThat(service.status(orders, 2, 8, 3).allCached(2, 8)).isTrue(); // reads from block 3, reports what it reads: none
      assertThat(service.acquire(orders, 0, 8).allCached(0, 8)).as("cached blocks of an acquire are counted when read").isTrue();
      assertThat(service.insight().tables().get(0).hitBlocks()).isZero();
      assertThat(service.status(orders, 2, 8).allCached(2, 8)).isTrue(); // a caller that does not report: 6 hits
      service.reportReads(orders, new int[] {7, 0}); // 2 hits
      service.reportReads(orders, new int[0]);

      CacheInsightReport report = service.insight();
      TableStats orderStats = report.tables().get(0);
      assertThat(orderStats.hitBlocks()).isEqualTo(8);
      assertThat(orderStats.missBlocks()).isEqualTo(8);
      assertThat(report.workingSet().accessedBytes()).isEqualTo(16L * BLOCK);
      assertThat(report.workingSet().distinctBytes()).isEqualTo(8L * BLOCK);
      assertThatThrownBy(() -> service.status(orders, 2, 8, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readBlock 1");
      assertThatThrownBy(() -> service.status(orders, 2, 8, 8)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readBlock 8");
      assertThatThrownBy(() -> service.reportReads(orders, new int[] {8})).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Block 8");
      assertThatThrownBy(() -> service.reportReads(orders, new int[CacheMetadataService.MAX_BLOCKS_PER_CALL + 1]))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
