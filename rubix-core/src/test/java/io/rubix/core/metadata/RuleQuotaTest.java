package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.CacheRules;
import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.core.metadata.journal.MetadataJournal;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.DataFileLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Path rules in the metadata service, which is the daemon's too: an excluded path gets no grant, and
 * the bytes charged to a rule with a quota stay within it at every grant, across restarts, counting
 * the bytes of dropped objects that grantees may still be writing, without evicting other rules' objects.
 */
class RuleQuotaTest {
  private static final int BLOCK = 4096;
  /** What a one-block object is charged. */
  private static final long UNIT = BLOCK + DiskCharge.OBJECT_OVERHEAD;
  private static final Duration LEASE = Duration.ofSeconds(10);

  @TempDir
  Path root;
  @TempDir
  Path confDir;

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  private CacheRules rules(String... settings) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", confDir.toString());
    for (int i = 0; i < settings.length; i += 2) {
      conf.set(settings[i], settings[i + 1]);
    }
    return CacheConfig.from(conf).rules();
  }

  /** dims: 6 units of quota; tmp: excluded; facts: no quota. */
  private CacheRules dimsTmpFacts(String dimsQuota) {
    return rules("rubix.cache.rules", "dims,tmp,facts",
        "rubix.cache.rule.dims.paths", "s3a://lake/warehouse/dim_*/**",
        "rubix.cache.rule.dims.quota", dimsQuota,
        "rubix.cache.rule.tmp.paths", "s3a://lake/tmp/**",
        "rubix.cache.rule.tmp.action", "exclude",
        "rubix.cache.rule.facts.paths", "/warehouse/");
  }

  private InProcessMetadataService service(CacheRules rules, MetadataJournal journal, EvictionPolicy policy) {
    return new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(100 * UNIT)).leaseTimeout(LEASE)
        .nanoClock(clock::get).journal(journal).evictionPolicy(policy).rules(rules).build());
  }

  @Test
  void anExcludedPathGetsNoGrantAndUsesNoSpace() throws Exception {
    try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(6 * UNIT)), MetadataJournal.NONE,
        EvictionPolicy.LRU)) {
      ObjectVersion tmp = new ObjectVersion("s3a://lake/tmp/spill-0", 4L * BLOCK, 1, "t");
      BlockRange range = service.acquire(tmp, 0, 4);

      for (int b = 0; b < 4; b++) {
        assertThat(range.state(b)).isEqualTo(BlockState.DENIED);
      }
      assertThat(range.leaseId()).isZero();
      assertThat(service.usage().usedBytes()).isZero();
      assertThat(service.usage().disks().get(0).objects()).isZero();
      assertThat(service.counters().ruleExcludedRequests()).isEqualTo(1);
      try (Stream<Path> files = Files.walk(root)) {
        assertThat(files.filter(Files::isRegularFile).toList()).as("files in the cache").isEmpty();
      }
    }
  }

  @Test
  void readingMoreThanTheQuotaKeepsTheRuleWithinItAndLeavesOtherRulesAlone() throws Exception {
    long quota = 6 * UNIT;
    for (EvictionPolicy policy : EvictionPolicy.values()) {
      try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(quota)), MetadataJournal.NONE, policy)) {
        List<ObjectVersion> facts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          facts.add(new ObjectVersion("s3a://lake/warehouse/fact_sales/part-" + i, 2L * BLOCK, 1, "f" + i));
          read(service, facts.get(i), 0, 2);
        }
        long factsCharged = service.usage().usedBytes();

        for (int i = 0; i < 20; i++) {
          ObjectVersion dim = new ObjectVersion("s3a://lake/warehouse/dim_" + i + "/part-0", 3L * BLOCK, 1, "d" + i);
          read(service, dim, 0, 3);
          assertThat(service.status(dim, 0, 3).allCached(0, 3)).as("%s: dim %s, the newest, is cached", policy, i).isTrue();
        }

        RuleUsage dims = service.counters().ruleUsage().get(0);
        assertThat(dims.rule()).isEqualTo("dims");
        assertThat(dims.quotaBytes()).isEqualTo(quota);
        assertThat(dims.evictions()).as("%s: evictions to stay within the quota", policy).isPositive();
        assertThat(dims.usedBytes()).isEqualTo(service.usage().usedBytes() - factsCharged);
        for (ObjectVersion fact : facts) {
          assertThat(service.status(fact, 0, 2).allCached(0, 2)).as("%s: %s after the dims were read", policy, fact.path()).isTrue();
        }
      }
    }
  }

  @Test
  void underTinyLfuAGrantTheDiskRefusesEvictsNothingForTheQuota(@TempDir Path second) throws Exception {
    List<Path> roots = List.of(root, second);
    DataFileLayout layout = new DataFileLayout(roots);
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, roots, List.of(4 * UNIT, 4 * UNIT))
        .leaseTimeout(LEASE).nanoClock(clock::get).evictionPolicy(EvictionPolicy.TINYLFU).rules(dimsTmpFacts(Long.toString(UNIT)))
        .build())) {
      // the rule's quota is full with one dim on the first disk
      ObjectVersion cachedDim = onDisk(layout, 0, "s3a://lake/warehouse/dim_a/part-", 1);
      read(service, cachedDim, 0, 1);
      // the second disk is full of facts read again and again
      List<ObjectVersion> facts = new ArrayList<>();
      for (int i = 0; facts.size() < 4; i++) {
        facts.add(onDisk(layout, 1, "s3a://lake/warehouse/fact_" + i + "/part-", 1));
      }
      for (int round = 0; round < 10; round++) {
        for (ObjectVersion fact : facts) {
          read(service, fact, 0, 1);
        }
      }
      for (ObjectVersion fact : facts) {
        assertThat(service.status(fact, 0, 1).allCached(0, 1)).as("%s", fact.path()).isTrue();
      }
      long evictions = service.usage().evictions();

      // a dim read once, on the second disk: it would need the first dim's quota, and the second disk refuses it
      ObjectVersion newDim = onDisk(layout, 1, "s3a://lake/warehouse/dim_b/part-", 1);
      read(service, newDim, 0, 1);

      assertThat(service.counters().admissionRejections()).isPositive();
      assertThat(service.status(newDim, 0, 1).state(0)).isEqualTo(BlockState.MISSING);
      assertThat(service.status(cachedDim, 0, 1).allCached(0, 1)).as("the dim the refused grant would have evicted").isTrue();
      assertThat(service.usage().evictions()).isEqualTo(evictions);
      assertThat(service.counters().ruleUsage().get(0).evictions()).isZero();
    }
  }

  /** A one-block version at {@code prefix} + n, for the first n whose path {@code layout} puts on {@code disk}. */
  private static ObjectVersion onDisk(DataFileLayout layout, int disk, String prefix, int blocks) {
    for (int n = 0; ; n++) {
      ObjectVersion version = new ObjectVersion(prefix + n, (long) blocks * BLOCK, 1, "v" + n);
      if (layout.diskOf(version) == disk) {
        return version;
      }
    }
  }

  @Test
  void aBlockLargerThanTheQuotaIsDeniedAndCounted() throws Exception {
    try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(UNIT + BLOCK / 2)), MetadataJournal.NONE, EvictionPolicy.LRU)) {
      ObjectVersion dim = new ObjectVersion("s3a://lake/warehouse/dim_a/part-0", 3L * BLOCK, 1, "d");
      BlockRange range = service.acquire(dim, 0, 3);
      assertWithinQuotas(service, "the grant");

      assertThat(range.state(0)).isEqualTo(BlockState.GRANTED);
      assertThat(range.state(1)).isEqualTo(BlockState.DENIED);
      assertThat(range.state(2)).isEqualTo(BlockState.DENIED);
      assertThat(service.counters().ruleUsage().get(0).denials()).isEqualTo(2);
    }
  }

  @Test
  void bytesGranteesOfADroppedObjectMayStillWriteCountAgainstTheQuotaUntilTheyAreDone() throws Exception {
    try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(2 * UNIT)), MetadataJournal.NONE, EvictionPolicy.LRU)) {
      ObjectVersion writing = new ObjectVersion("s3a://lake/warehouse/dim_a/part-0", 3L * BLOCK, 1, "a");
      BlockRange lease = service.acquire(writing, 0, 3);
      assertThat(lease.state(2)).isEqualTo(BlockState.GRANTED);
      service.invalidate(writing);
      assertThat(service.counters().ruleUsage().get(0).usedBytes()).as("the three granted blocks, fenced").isEqualTo(3L * BLOCK);

      ObjectVersion next = new ObjectVersion("s3a://lake/warehouse/dim_b/part-0", 3L * BLOCK, 1, "b");
      BlockRange second = service.acquire(next, 0, 3);
      assertWithinQuotas(service, "a grant while the dropped object's blocks may be written");
      assertThat(second.state(0)).isEqualTo(BlockState.DENIED);

      service.abort(lease.leaseId(), new int[] {0, 1, 2}, true);
      read(service, next, 0, 3);
      assertThat(service.status(next, 0, 3).allCached(0, 3)).as("once the grantee is done").isTrue();
    }
  }

  @Test
  void quotasHoldAcrossARestartAndAQuotaMadeSmallerEvictsAtStart() throws Exception {
    long quota = 6 * UNIT;
    List<ObjectVersion> dims = new ArrayList<>();
    long usedBefore;
    try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(quota)), new FileMetadataJournal(BLOCK), EvictionPolicy.LRU)) {
      for (int i = 0; i < 5; i++) {
        dims.add(new ObjectVersion("s3a://lake/warehouse/dim_" + i + "/part-0", 1L * BLOCK, 1, "d" + i));
        read(service, dims.get(i), 0, 1);
      }
      usedBefore = service.counters().ruleUsage().get(0).usedBytes();
      assertThat(usedBefore).isEqualTo(5 * UNIT);
    }
    try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(quota)), new FileMetadataJournal(BLOCK), EvictionPolicy.LRU)) {
      assertThat(service.counters().ruleUsage().get(0).usedBytes()).as("recovered objects charged to their rule again").isEqualTo(usedBefore);
      for (int i = 5; i < 12; i++) {
        read(service, new ObjectVersion("s3a://lake/warehouse/dim_" + i + "/part-0", 1L * BLOCK, 1, "d" + i), 0, 1);
      }
      assertThat(service.counters().ruleUsage().get(0).usedBytes()).isEqualTo(quota);
      assertThat(service.status(dims.get(0), 0, 1).state(0)).as("the least recently used, recovered, was evicted").isEqualTo(BlockState.MISSING);
    }
    try (InProcessMetadataService service = service(dimsTmpFacts(Long.toString(2 * UNIT)), new FileMetadataJournal(BLOCK), EvictionPolicy.LRU)) {
      RuleUsage usage = service.counters().ruleUsage().get(0);
      assertThat(usage.usedBytes()).as("after a restart with a smaller quota").isEqualTo(2 * UNIT);
      assertThat(usage.objects()).isEqualTo(2);
      assertThat(service.usage().usedBytes()).isEqualTo(2 * UNIT);
    }
    try (InProcessMetadataService service = service(rules("rubix.cache.rules", "dims", "rubix.cache.rule.dims.paths", "s3a://lake/warehouse/dim_*/**",
        "rubix.cache.rule.dims.action", "exclude"), new FileMetadataJournal(BLOCK), EvictionPolicy.LRU)) {
      assertThat(service.usage().usedBytes()).as("objects of a path excluded since are dropped at start").isZero();
      try (Stream<Path> files = Files.walk(root)) {
        assertThat(files.filter(p -> Files.isRegularFile(p) && p.toString().contains("dim_")).toList()).isEmpty();
      }
    }
  }

  @Test
  void quotasAndCapHoldUnderRandomGrantCommitAbortInvalidateAndExpiryAndTheAccountsBalanceAfterwards() throws Exception {
    for (EvictionPolicy policy : EvictionPolicy.values()) {
      long seed = Long.getLong("rubix.fuzz.seed", System.nanoTime());
      Random random = new Random(seed);
      CacheRules rules = rules("rubix.cache.rules", "tmp,dims,facts",
          "rubix.cache.rule.tmp.paths", "/tmp/", "rubix.cache.rule.tmp.action", "exclude",
          "rubix.cache.rule.dims.paths", "/dims/", "rubix.cache.rule.dims.quota", Long.toString(5L * BLOCK + 100),
          "rubix.cache.rule.facts.paths", "/facts/", "rubix.cache.rule.facts.quota", "40%");
      try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(16L * BLOCK))
          .leaseTimeout(LEASE).nanoClock(clock::get).evictionPolicy(policy).rules(rules).build())) {
        List<ObjectVersion> versions = new ArrayList<>();
        for (String dir : List.of("tmp", "dims", "facts", "other")) {
          for (int i = 0; i < 4; i++) {
            versions.add(new ObjectVersion("s3a://lake/" + dir + "/part-" + i, 1 + random.nextInt(4 * BLOCK), 1, dir + i));
          }
        }
        List<BlockRange> open = new ArrayList<>();
        for (int step = 0; step < 3_000; step++) {
          String what = policy + " step " + step + " (seed " + seed + ")";
          ObjectVersion version = versions.get(random.nextInt(versions.size()));
          int blocks = version.blockCount(BLOCK);
          int first = random.nextInt(blocks);
          int end = first + 1 + random.nextInt(blocks - first);
          int op = random.nextInt(10);
          if (op < 4) {
            BlockRange range = service.acquire(version, first, end);
            if (range.leaseId() != 0) {
              assertThat(version.path()).as(what).doesNotContain("/tmp/");
              open.add(range);
            }
          } else if (op < 6 && !open.isEmpty()) {
            BlockRange range = open.remove(random.nextInt(open.size()));
            List<Integer> granted = new ArrayList<>();
            for (int b = range.firstBlock(); b < range.endBlock(); b++) {
              if (range.state(b) == BlockState.GRANTED && random.nextBoolean()) {
                granted.add(b);
              }
            }
            TestBlocks.commit(service, range, BLOCK, granted.stream().mapToInt(Integer::intValue).toArray());
          } else if (op < 8 && !open.isEmpty()) {
            BlockRange range = open.remove(random.nextInt(open.size()));
            service.abort(range.leaseId(), IntStream.range(range.firstBlock(), range.endBlock()).toArray(), random.nextBoolean());
          } else if (op == 8) {
            clock.addAndGet(random.nextInt(4) * LEASE.toNanos() / 3);
            service.status(version, first, end);
          } else {
            service.invalidate(version);
          }
          assertWithinQuotas(service, what);
          for (RuleUsage rule : service.counters().ruleUsage()) {
            assertThat(rule.usedBytes()).as("%s: rule %s", what, rule.rule()).isNotNegative();
          }
        }
        assertThat(service.counters().ruleExcludedRequests()).isPositive();
        assertThat(service.counters().ruleUsage()).as("seed %s", seed).anySatisfy(rule -> assertThat(rule.evictions()).isPositive());

        // every lease and fence over: what each rule is charged is exactly what its cached objects are
        for (BlockRange range : open) {
          service.abort(range.leaseId(), IntStream.range(range.firstBlock(), range.endBlock()).toArray(), true);
        }
        clock.addAndGet(2 * LEASE.toNanos());
        service.status(versions.get(0), 0, 1);
        List<CachedFile> files = service.topFiles(100);
        for (RuleUsage rule : service.counters().ruleUsage()) {
          long charged = files.stream().filter(file -> file.version().path().contains("/" + rule.rule() + "/")).mapToLong(CachedFile::chargedBytes).sum();
          assertThat(rule.usedBytes()).as("%s: rule %s charged, seed %s", policy, rule.rule(), seed).isEqualTo(charged);
        }
      }
    }
  }

  /** What a reader does ({@link TestBlocks#read}), checking after each grant with {@code assertWithinQuotas}. */
  private static void read(InProcessMetadataService service, ObjectVersion version, int first, int end) throws IOException {
    TestBlocks.read(service, version, first, end, BLOCK, afterWhat -> assertWithinQuotas(service, afterWhat));
  }

  private static void assertWithinQuotas(InProcessMetadataService service, String afterWhat) {
    for (RuleUsage rule : service.counters().ruleUsage()) {
      assertThat(rule.usedBytes()).as("rule %s charged after %s", rule.rule(), afterWhat).isLessThanOrEqualTo(rule.quotaBytes());
    }
    for (CacheUsage.Disk disk : service.usage().disks()) {
      assertThat(disk.usedBytes() + disk.reservedBytes()).as("used + reserved after %s", afterWhat).isLessThanOrEqualTo(disk.capacityBytes());
    }
  }
}
