package io.rubix.core.insight;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spi.metadata.TableStats;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixTableTest {
  @Test
  void manyDistinctTablesKeepAtMostNPlusOtherAndTheHeavyHitters() {
    int n = 10;
    PrefixTable table = new PrefixTable(n);
    Random random = new Random(42);
    long hits = 0;
    long misses = 0;
    long heavyAccesses = 0;
    // a scan over 5,000 one-off tables fills the table first: the heavy tables arrive when it is full
    for (int i = 0; i < 5_000; i++) {
      table.accessed("s3a://lake/backfill/t" + i, 1, 0, 1, 4096);
      misses++;
    }
    for (int i = 0; i < 200_000; i++) {
      String prefix;
      int r = random.nextInt(100);
      if (r < 30) {
        prefix = "s3a://lake/dim/customers"; // 30% of the blocks
        heavyAccesses++;
      } else if (r < 45) {
        prefix = "s3a://lake/dim/items"; // 15%
      } else {
        prefix = "s3a://lake/scan/t" + random.nextInt(50_000); // a long tail of one-off tables
      }
      boolean hit = random.nextBoolean();
      table.accessed(prefix, 1, hit ? 1 : 0, hit ? 0 : 1, hit ? 0 : 4096);
      hits += hit ? 1 : 0;
      misses += hit ? 0 : 1;
      assertThat(table.size()).isLessThanOrEqualTo(n);
    }
    List<TableStats> stats = table.snapshot(Map.of("s3a://lake/dim/customers", 100L, "s3a://lake/scan/t1", 7L, "s3a://lake/unseen", 5L));
    assertThat(stats).hasSizeLessThanOrEqualTo(n + 1);
    assertThat(stats.get(stats.size() - 1).prefix()).isEqualTo(TableStats.OTHER);
    assertThat(stats.get(0).prefix()).isEqualTo("s3a://lake/dim/customers");
    assertThat(stats.get(1).prefix()).isEqualTo("s3a://lake/dim/items");
    TableStats customers = stats.get(0);
    // monitored from its first access (it never left the table): its counts are exact; its weight may be
    // overstated by what the entry it took over had, at most all blocks so far over N
    assertThat(customers.hitBlocks() + customers.missBlocks()).isEqualTo(heavyAccesses);
    assertThat(customers.weightError()).isBetween(1L, 5_000L / n);
    assertThat(customers.cachedBytes()).isEqualTo(100);
    // nothing is lost: entries plus other add up to every access
    assertThat(stats.stream().mapToLong(TableStats::hitBlocks).sum()).isEqualTo(hits);
    assertThat(stats.stream().mapToLong(TableStats::missBlocks).sum()).isEqualTo(misses);
    assertThat(stats.stream().mapToLong(TableStats::grantedBytes).sum()).isEqualTo(misses * 4096);
    assertThat(stats.stream().mapToLong(TableStats::cachedBytes).sum()).isEqualTo(112);
  }

  @Test
  void eventsOfPrefixesWithoutAnEntryCountForOther() {
    PrefixTable table = new PrefixTable(1);
    table.accessed("s3a://a/x", 2, 2, 0, 0);
    table.filled("s3a://a/x", 10);
    table.filled("s3a://a/y", 20);
    table.evicted("s3a://a/y");
    table.accessed("s3a://a/y", 1, 0, 1, 5); // replaces x (weight 2): y's weight 3, error 2; x's counters go to other
    List<TableStats> stats = table.snapshot(Map.of());
    assertThat(stats).containsExactly(
        new TableStats("s3a://a/y", 0, 1, 0, 5, 0, 0, 2),
        new TableStats(TableStats.OTHER, 2, 0, 0, 0, 30, 1, 0));
  }
}
