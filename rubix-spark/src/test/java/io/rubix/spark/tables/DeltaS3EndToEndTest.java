package io.rubix.spark.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.testing.S3ServerLauncher;
import io.rubix.testing.S3ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Delta Lake table (delta-spark 4.0 on Spark 4.0, Parquet) on the S3 server read through
 * {@code CachingS3AFileSystem} with the rule set docs/operations.md gives for Delta: the table's files
 * immutable, {@code _delta_log/_last_checkpoint} (overwritten in place at every checkpoint) strict.
 *
 * <p>Every pass starts from a cleared {@code DeltaLog} cache, so Delta reads its log as a new
 * application would. The table is written and updated through plain S3A (another application, whose
 * writes this cache does not see); direct passes read through plain S3A too. The S3 server counts
 * requests per object, so the passes are measured per class: data files and {@code _delta_log}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeltaS3EndToEndTest {
  private static final String BUCKET = "lake";
  private static final String TABLE = "s3a://" + BUCKET + "/delta/events";
  private static final String ALL_IMMUTABLE_TABLE = "s3a://" + BUCKET + "/delta/events_all_immutable";
  private static final Predicate<String> LOG = key -> key.contains("/_delta_log/");
  private static final Predicate<String> LAST_CHECKPOINT = key -> key.endsWith("/_delta_log/_last_checkpoint");
  private static final Predicate<String> DATA = key -> key.startsWith(BUCKET + "/delta/") && key.endsWith(".parquet") && !LOG.test(key);

  @TempDir
  static Path temp;
  private S3ServerProcess server;
  private SparkSession spark;
  /** The file system class passes read through now. */
  private Class<? extends FileSystem> reading;

  @BeforeAll
  void start() throws IOException {
    server = S3ServerLauncher.start(temp.resolve("logs"), List.of("--bucket", BUCKET));
    SparkSession.Builder builder = SparkSession.builder()
        .master("local[2]")
        .appName("rubix-delta")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        // the log's state in 2 partitions (default 50): a small table, a small machine
        .config("spark.databricks.delta.snapshotPartitions", "2");
    server.s3aSettings().forEach((key, value) -> builder.config("spark.hadoop." + key, value));
    spark = builder.getOrCreate();
  }

  @AfterAll
  void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * Direct, cold and warm passes answer the same; the warm pass fetches no data file and sends no
   * HEAD for one; an update by another writer (a new commit and a new checkpoint, so
   * {@code _last_checkpoint} is overwritten) is read right by the next reader, whose old data files
   * still come from the cache.
   */
  @Test
  void deltaTableReadsRightAndWarmWithTheRuleSet() throws IOException {
    plainS3A();
    spark.sql("CREATE TABLE delta.`" + TABLE + "` (id BIGINT, k INT, v STRING) USING delta"
        + " TBLPROPERTIES ('delta.checkpointInterval' = '2')");
    for (int commit = 1; commit <= 3; commit++) {
      insert(TABLE, commit);
    }
    // versions 0 (create) to 3: a checkpoint at 2, so a reader reads _last_checkpoint, the checkpoint and 3.json
    Pass direct = pass(TABLE);

    cached(deltaRuleSet(), "cache");
    Pass cold = pass(TABLE);
    Pass warm = pass(TABLE);

    plainS3A();
    byte[] hintBefore = readPlain(TABLE + "/_delta_log/_last_checkpoint");
    insert(TABLE, 4);
    byte[] hintAfter = readPlain(TABLE + "/_delta_log/_last_checkpoint");
    Pass directUpdated = pass(TABLE);
    cached(deltaRuleSet(), "cache");
    Pass updated = pass(TABLE);

    Map<String, Predicate<String>> classes = classes();
    String report = "delta: direct " + direct.describe(classes) + "\n  cold " + cold.describe(classes) + "\n  warm " + warm.describe(classes)
        + "\n  after the update: direct " + directUpdated.describe(classes) + "\n  next reader " + updated.describe(classes)
        + "\n  cold requests: " + cold.served().of(key -> true) + "\n  warm log requests: " + warm.served().of(LOG) + "\n  next reader's log requests: " + updated.served().of(LOG);
    System.err.println(report);

    assertThat(direct.rows()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    assertThat(cold.rows()).as(report).isEqualTo(direct.rows());
    assertThat(warm.rows()).as(report).isEqualTo(direct.rows());
    assertThat(cold.served().gets(DATA)).as("cold pass fetches data files: %s", report).isPositive();
    assertThat(warm.served().gets(DATA)).as("warm: no data file fetched: %s", report).isZero();
    assertThat(warm.served().heads(DATA)).as("warm: immutable data files need no HEAD: %s", report).isZero();
    assertThat(warm.served().gets(LOG)).as("warm: the log comes from the cache: %s", report).isZero();
    assertThat(warm.served().heads(LAST_CHECKPOINT)).as("warm: _last_checkpoint is strict, one HEAD per open: %s", report).isPositive();

    assertThat(hintAfter).as("the new checkpoint overwrote _last_checkpoint").isNotEqualTo(hintBefore);
    assertThat(directUpdated.rows()).isNotEqualTo(direct.rows());
    assertThat(updated.rows()).as("no stale answer after the update: %s", report).isEqualTo(directUpdated.rows());
    assertThat(updated.served().gets(LAST_CHECKPOINT)).as("the overwritten _last_checkpoint is fetched again: %s", report).isPositive();
    assertThat(updated.served().gets(oldDataFiles(cold))).as("old data files still from the cache: %s", report).isZero();
  }

  /**
   * With every file immutable (no rule set), a reader trusts the {@code _last_checkpoint} it cached
   * when the overwritten one has the same length (the version key of an immutable file is its path and
   * length). Delta still answers right: the file is a hint, Delta lists {@code _delta_log} from the
   * version it names and takes the newest checkpoint and commits it finds.
   */
  @Test
  void withEverythingImmutableAStaleLastCheckpointIsOnlyAHint() throws IOException {
    plainS3A();
    spark.sql("CREATE TABLE delta.`" + ALL_IMMUTABLE_TABLE + "` (id BIGINT, k INT, v STRING) USING delta"
        + " TBLPROPERTIES ('delta.checkpointInterval' = '1')");
    insert(ALL_IMMUTABLE_TABLE, 1);
    insert(ALL_IMMUTABLE_TABLE, 2);
    String hint = ALL_IMMUTABLE_TABLE + "/_delta_log/_last_checkpoint";
    Map<String, String> allImmutable = Map.of("rubix.cache.freshness", "immutable");

    cached(allImmutable, "cache-all-immutable");
    Pass before = pass(ALL_IMMUTABLE_TABLE);
    byte[] cachedBefore = readCached(hint);

    plainS3A();
    byte[] hintBefore = readPlain(hint);
    insert(ALL_IMMUTABLE_TABLE, 3);
    byte[] hintAfter = readPlain(hint);
    Pass direct = pass(ALL_IMMUTABLE_TABLE);

    cached(allImmutable, "cache-all-immutable");
    Pass after = pass(ALL_IMMUTABLE_TABLE);
    byte[] cachedAfter = readCached(hint);

    String report = "delta, everything immutable: _last_checkpoint " + hintBefore.length + " bytes before the update, " + hintAfter.length
        + " after; the reader after the update read " + (Arrays.equals(cachedAfter, hintBefore) ? "the old one (stale)" : "the new one")
        + "; its log requests: " + after.served().of(LOG);
    System.err.println(report);
    assertThat(cachedBefore).isEqualTo(hintBefore);
    assertThat(hintAfter).isNotEqualTo(hintBefore);
    if (hintAfter.length == hintBefore.length) {
      assertThat(cachedAfter).as("same path and length: the immutable cached version is served: %s", report).isEqualTo(hintBefore);
    } else {
      assertThat(cachedAfter).as("another length is another version: %s", report).isEqualTo(hintAfter);
    }
    assertThat(direct.rows()).isNotEqualTo(before.rows());
    assertThat(after.rows()).as("Delta lists the log past the hint: %s", report).isEqualTo(direct.rows());
  }

  private static Map<String, Predicate<String>> classes() {
    Map<String, Predicate<String>> classes = new LinkedHashMap<>();
    classes.put("data", DATA);
    classes.put("_delta_log", LOG);
    return classes;
  }

  /** The data files a pass fetched. */
  private static Predicate<String> oldDataFiles(Pass pass) {
    Set<String> fetched = new HashSet<>();
    pass.served().of(DATA).keySet().forEach(request -> fetched.add(request.substring(request.indexOf(' ') + 1)));
    return fetched::contains;
  }

  /** Commit {@code n}: 1,500 rows in 2 files. */
  private void insert(String table, int n) {
    long from = (n - 1) * 1_500L;
    spark.sql("INSERT INTO delta.`" + table + "` SELECT id, CAST(id % 7 AS INT) AS k, concat('v', id) AS v FROM range(" + from + ", "
        + (from + 1_500) + ", 1, 2)");
  }

  /** Both queries, from a cleared {@code DeltaLog} cache, and what the server served for them. */
  private Pass pass(String table) throws IOException {
    DeltaLog.clearCache();
    server.reset();
    List<List<String>> rows = List.of(
        rows("SELECT k, count(*) AS n, sum(id) AS s, max(v) AS m FROM delta.`" + table + "` GROUP BY k ORDER BY k"),
        rows("SELECT count(*) AS n, sum(length(v)) AS l FROM delta.`" + table + "` WHERE id % 3 = 0"));
    ServedRequests served = new ServedRequests(server.requests());
    server.reset();
    assertThat(fileSystem()).as("the pass read through the session's file system").isExactlyInstanceOf(reading);
    return new Pass(rows, served);
  }

  private List<String> rows(String sql) {
    return spark.sql(sql).collectAsList().stream().map(Row::toString).toList();
  }

  /** Reads and writes through plain S3A from now on (a new file system instance). */
  private void plainS3A() throws IOException {
    useFileSystem(S3AFileSystem.class, Map.of(), "unused");
  }

  /** Reads through the cache in {@code cacheDir} with {@code freshness} (rules or a file system wide mode), from a new file system instance. */
  private void cached(Map<String, String> freshness, String cacheDir) throws IOException {
    useFileSystem(CachingS3AFileSystem.class, freshness, cacheDir);
  }

  /** docs/operations.md's rule set for a Delta lake in this bucket. */
  static Map<String, String> deltaRuleSet() {
    Map<String, String> rules = new LinkedHashMap<>();
    rules.put("rubix.cache.rules", "delta_log,delta");
    rules.put("rubix.cache.rule.delta_log.paths", "s3a://" + BUCKET + "/**/_delta_log/_last_checkpoint");
    rules.put("rubix.cache.rule.delta.paths", "s3a://" + BUCKET + "/");
    rules.put("rubix.cache.rule.delta.freshness", "immutable");
    return rules;
  }

  private void useFileSystem(Class<? extends FileSystem> impl, Map<String, String> settings, String cacheDir) throws IOException {
    deltaRuleSet().keySet().forEach(spark.conf()::unset);
    spark.conf().unset("rubix.cache.freshness");
    spark.conf().set("fs.s3a.impl", impl.getName());
    spark.conf().set("rubix.cache.dirs", temp.resolve(cacheDir).toString());
    settings.forEach((key, value) -> spark.conf().set(key, value));
    FileSystem.closeAll();
    reading = impl;
    assertThat(fileSystem()).isExactlyInstanceOf(impl);
  }

  private FileSystem fileSystem() throws IOException {
    return new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/").getFileSystem(spark.sessionState().newHadoopConf());
  }

  private byte[] readPlain(String file) throws IOException {
    assertThat(fileSystem()).isExactlyInstanceOf(S3AFileSystem.class);
    return read(file);
  }

  private byte[] readCached(String file) throws IOException {
    assertThat(fileSystem()).isExactlyInstanceOf(CachingS3AFileSystem.class);
    return read(file);
  }

  private byte[] read(String file) throws IOException {
    try (FSDataInputStream in = fileSystem().open(new org.apache.hadoop.fs.Path(file))) {
      return in.readAllBytes();
    }
  }

  /** One pass: the rows of each query, and what the server served for it. */
  private record Pass(List<List<String>> rows, ServedRequests served) {
    String describe(Map<String, Predicate<String>> classes) {
      return served.describe(classes);
    }
  }
}
