package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.version;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.rubix.core.CacheEngine;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.testing.CountingBlobStore;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which version an open reads, per rubix.cache.freshness: strict sees an overwrite on the next open
 * (new ETag on S3, new length or modification time on the local file system), ttl trusts a status
 * for the configured time, immutable never asks again.
 */
class FreshnessTest {
  private static final int BLOCK = 4096;
  private static final int LENGTH = 3 * BLOCK + 10;
  private static S3Server server;
  private static int objects;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("fresh");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static byte[] random(int seed) {
    byte[] bytes = new byte[LENGTH];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private Configuration cachingConf(String freshness) {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", tmp.resolve("cache").toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.freshness", freshness);
    return conf;
  }

  private static java.util.List<Throwable> causes(Throwable e) {
    java.util.List<Throwable> chain = new java.util.ArrayList<>();
    for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private static Configuration noReadAhead(Configuration conf) {
    conf.set("rubix.cache.readahead.max", "0");
    // one block per miss: no tail or whole-object extent
    conf.set("rubix.cache.fetch.tail.size", "0");
    conf.set("rubix.cache.fetch.whole.max", "0");
    return conf;
  }

  private static org.apache.hadoop.fs.Path newObject() {
    return new org.apache.hadoop.fs.Path("s3a://fresh/object-" + (++objects) + ".bin");
  }

  /** Reads everything with one stream and waits for its cache writes; returns the bytes. */
  private static byte[] readAndSettle(FileSystem fs, org.apache.hadoop.fs.Path path) throws Exception {
    byte[] bytes = new byte[LENGTH];
    ObjectVersion version;
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(0, bytes);
      version = version(in);
    }
    CacheEngine engine = fs instanceof CachingS3AFileSystem s3 ? s3.cacheEngine() : ((CachingFileSystem) fs).cacheEngine();
    awaitWrites(engine, version);
    return bytes;
  }

  @Test
  void strictSeesAnOverwriteOnTheNextOpen() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    byte[] v1 = random(1);
    byte[] v2 = random(2);
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, cachingConf("strict"))) {
      write(plain, path, v1);
      assertThat(readAndSettle(cached, path)).isEqualTo(v1);
      assertThat(readAndSettle(cached, path)).isEqualTo(v1);

      write(plain, path, v2);
      CountingBlobStore store = server.store();
      store.reset();
      assertThat(readAndSettle(cached, path)).as("same length, new ETag").isEqualTo(v2);
      assertThat(store.gets()).isPositive();

      store.reset();
      assertThat(readAndSettle(cached, path)).isEqualTo(v2);
      assertThat(store.gets()).as("the new version is cached").isZero();

      byte[] v3 = random(3);
      write(cached, path, v3);
      assertThat(readAndSettle(cached, path)).as("overwritten through the caching file system").isEqualTo(v3);
    }
  }

  @Test
  void streamOpenedBeforeAnOverwriteNeverMixesVersions() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    byte[] v1 = random(4);
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, noReadAhead(cachingConf("strict")))) {
      write(plain, path, v1);
      try (FSDataInputStream in = cached.open(path)) {
        byte[] first = new byte[BLOCK];
        in.readFully(0, first);
        assertThat(first).isEqualTo(java.util.Arrays.copyOf(v1, BLOCK));
        write(plain, path, random(5));
        byte[] rest = new byte[LENGTH - BLOCK];
        // the uncached blocks cannot come from the new object: S3A's ETag change detection refuses the GET
        assertThatThrownBy(() -> in.readFully(BLOCK, rest)).isInstanceOf(IOException.class)
            .satisfies(e -> assertThat(causes(e)).hasAtLeastOneElementOfType(org.apache.hadoop.fs.s3a.RemoteFileChangedException.class));
      }
    }
  }

  /** An engine's own status class that carries the ETag (as EtagSource), not one of S3A's. */
  private static final class EngineStatus extends FileStatus implements org.apache.hadoop.fs.EtagSource {
    private static final long serialVersionUID = 1L;
    private final String etag;

    EngineStatus(FileStatus status, String etag) throws IOException {
      super(status);
      this.etag = etag;
    }

    @Override
    public String getEtag() {
      return etag;
    }
  }

  @Test
  void streamOpenedWithAnEngineStatusCarryingTheEtagNeverMixesVersions() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    byte[] v1 = random(15);
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, noReadAhead(cachingConf("strict")))) {
      write(plain, path, v1);
      FileStatus s3aStatus = plain.getFileStatus(path);
      FileStatus status = new EngineStatus(s3aStatus, ((org.apache.hadoop.fs.EtagSource) s3aStatus).getEtag());
      try (FSDataInputStream in = FutureIO.awaitFuture(cached.openFile(path).withFileStatus(status).build())) {
        byte[] first = new byte[BLOCK];
        in.readFully(0, first);
        assertThat(first).isEqualTo(java.util.Arrays.copyOf(v1, BLOCK));
        write(plain, path, random(16));
        byte[] rest = new byte[LENGTH - BLOCK];
        // S3A checks GETs only against the ETag of its own status classes: the cache hands it one
        assertThatThrownBy(() -> in.readFully(BLOCK, rest)).isInstanceOf(IOException.class)
            .satisfies(e -> assertThat(causes(e)).hasAtLeastOneElementOfType(org.apache.hadoop.fs.s3a.RemoteFileChangedException.class));
      }
    }
  }

  @Test
  void ttlTrustsARecentStatus() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    byte[] v1 = random(6);
    Configuration conf = cachingConf("ttl");
    conf.set("rubix.cache.freshness.ttl", "1h");
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, conf)) {
      write(plain, path, v1);
      server.store().reset();
      assertThat(readAndSettle(cached, path)).isEqualTo(v1);
      long heads = server.store().heads();
      assertThat(heads).isPositive();
      write(plain, path, random(7));
      server.store().reset();
      assertThat(readAndSettle(cached, path)).as("within the ttl the cached version is read, as documented").isEqualTo(v1);
      assertThat(server.store().heads()).isZero();
      assertThat(server.store().gets()).isZero();
    }
  }

  /**
   * Per-rule freshness, as for a Delta table: its data files are immutable (no HEAD after the first open),
   * its _last_checkpoint stays strict (a HEAD per open sees it overwritten), and paths no rule matches
   * keep the file system's strict mode. A freshness on an exclude rule is refused, naming the key.
   */
  @Test
  void aRuleGivesItsPathsTheirOwnFreshness() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path data = new org.apache.hadoop.fs.Path("s3a://fresh/delta/t/part-" + (++objects) + ".parquet");
    org.apache.hadoop.fs.Path checkpoint = new org.apache.hadoop.fs.Path("s3a://fresh/delta/t/_delta_log/_last_checkpoint");
    org.apache.hadoop.fs.Path other = newObject();
    Configuration conf = cachingConf("strict");
    conf.set("rubix.cache.rules", "delta_log,delta");
    conf.set("rubix.cache.rule.delta_log.paths", "s3a://fresh/delta/**/_delta_log/_last_checkpoint");
    conf.set("rubix.cache.rule.delta.paths", "s3a://fresh/delta/");
    conf.set("rubix.cache.rule.delta.freshness", "immutable");
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, conf)) {
      for (org.apache.hadoop.fs.Path path : java.util.List.of(data, checkpoint, other)) {
        write(plain, path, random(31));
        readAndSettle(cached, path);
      }
      write(plain, checkpoint, random(32));
      server.store().reset();
      assertThat(readAndSettle(cached, data)).isEqualTo(random(31));
      assertThat(server.store().heads()).as("an immutable data file: no HEAD").isZero();
      assertThat(server.store().gets()).isZero();
      assertThat(readAndSettle(cached, checkpoint)).as("a strict log file sees its overwrite").isEqualTo(random(32));
      assertThat(server.store().heads()).isEqualTo(1);
      readAndSettle(cached, other);
      assertThat(server.store().heads()).as("no rule: the file system's strict mode").isEqualTo(2);
    }
    Configuration excluded = cachingConf("strict");
    excluded.set("rubix.cache.rules", "tmp");
    excluded.set("rubix.cache.rule.tmp.paths", "s3a://fresh/tmp/**");
    excluded.set("rubix.cache.rule.tmp.action", "exclude");
    excluded.set("rubix.cache.rule.tmp.freshness", "immutable");
    assertThatThrownBy(() -> CacheConfig.from(excluded)).hasMessageContaining("rubix.cache.rule.tmp.freshness");
  }

  /**
   * S3A's {@code exists} and {@code isFile} bypass {@code getFileStatus}: for an immutable file read
   * before they answer from the status the cache trusts, as {@code getFileStatus} does (an Iceberg Hadoop
   * table asks {@code exists} of its current metadata file at every load). A file never read still asks.
   */
  @Test
  void existsAndIsFileOfAnImmutableFileReadBeforeSendNoHead() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path read = newObject();
    org.apache.hadoop.fs.Path unread = newObject();
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, cachingConf("immutable"))) {
      write(plain, read, random(41));
      write(plain, unread, random(42));
      readAndSettle(cached, read);
      server.store().reset();
      assertThat(cached.exists(read)).isTrue();
      @SuppressWarnings("deprecation")
      boolean isFile = cached.isFile(read);
      assertThat(isFile).isTrue();
      assertThat(server.store().heads()).as("a trusted status: no HEAD").isZero();
      assertThat(cached.exists(unread)).isTrue();
      assertThat(server.store().heads()).as("a file never read is asked for").isEqualTo(1);
      assertThat(cached.exists(new org.apache.hadoop.fs.Path("s3a://fresh/not-there"))).isFalse();
    }
  }

  /**
   * A status asked before any open (a planner's block locations) is what ttl and immutable then trust,
   * as an open's own HEAD: the next status call and the open ask nothing; strict asks every time.
   */
  @ParameterizedTest
  @ValueSource(strings = {"strict", "ttl", "immutable"})
  void aStatusAskedBeforeAnOpenIsTrustedUnlessStrict(String freshness) throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    Configuration conf = cachingConf(freshness);
    conf.set("rubix.cache.freshness.ttl", "1h");
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, conf)) {
      write(plain, path, random(43));
      server.store().reset();
      assertThat(cached.getFileStatus(path).getLen()).isEqualTo(LENGTH);
      assertThat(cached.getFileStatus(path).getLen()).isEqualTo(LENGTH);
      assertThat(readAndSettle(cached, path)).isEqualTo(random(43));
      assertThat(server.store().heads()).as("HEADs for two status calls and an open").isEqualTo(freshness.equals("strict") ? 3 : 1);
    }
  }

  /**
   * ORC opens a file and then asks for its status (length) while the stream is open: in ttl mode the
   * answer is the status the open trusted, so the length and the stream's bytes belong to one version
   * and the second HEAD is not made; strict asks the source every time.
   */
  @ParameterizedTest
  @ValueSource(strings = {"strict", "ttl", "immutable"})
  void statusAfterAnOpenIsTheOpensStatusUnlessStrict(String freshness) throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    Configuration conf = cachingConf(freshness);
    conf.set("rubix.cache.freshness.ttl", "1h");
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, conf)) {
      write(plain, path, random(17));
      readAndSettle(cached, path);
      byte[] longer = java.util.Arrays.copyOf(random(18), LENGTH + 100);
      write(plain, path, longer);
      server.store().reset();
      FileStatus status;
      try (FSDataInputStream in = cached.open(path)) {
        status = cached.getFileStatus(path);
        if (freshness.equals("strict")) {
          assertThat(status.getLen()).isEqualTo(longer.length);
          assertThat(server.store().heads()).as("strict asks on open and on getFileStatus").isEqualTo(2);
        } else {
          assertThat(status.getLen()).as("the version the open reads").isEqualTo(LENGTH);
          assertThat(server.store().heads()).isZero();
          byte[] bytes = new byte[LENGTH];
          in.readFully(0, bytes);
          assertThat(bytes).isEqualTo(random(17));
        }
      }
      assertThat(status.getPath()).isEqualTo(cached.makeQualified(path));

      cached.delete(path, false);
      assertThatThrownBy(() -> cached.getFileStatus(path)).as("a delete through the file system forgets the status")
          .isInstanceOf(java.io.FileNotFoundException.class);
      org.apache.hadoop.fs.Path never = newObject();
      assertThatThrownBy(() -> cached.getFileStatus(never)).isInstanceOf(java.io.FileNotFoundException.class);

      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("s3a://fresh/dir-" + freshness);
      org.apache.hadoop.fs.Path child = new org.apache.hadoop.fs.Path(dir, "part-0.orc");
      write(plain, child, random(19));
      readAndSettle(cached, child);
      cached.delete(dir, true);
      assertThatThrownBy(() -> cached.getFileStatus(child)).as("a recursive delete forgets what is under the directory")
          .isInstanceOf(java.io.FileNotFoundException.class);
    }
  }

  @Test
  void zeroTtlAsksOnEveryOpen() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    byte[] v2 = random(9);
    Configuration conf = cachingConf("ttl");
    conf.set("rubix.cache.freshness.ttl", "0s");
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, conf)) {
      write(plain, path, random(8));
      readAndSettle(cached, path);
      write(plain, path, v2);
      server.store().reset();
      assertThat(readAndSettle(cached, path)).isEqualTo(v2);
      assertThat(server.store().heads()).isPositive();
    }
  }

  @Test
  void immutableNeverAsksAgain() throws Exception {
    URI bucket = URI.create("s3a://fresh/");
    org.apache.hadoop.fs.Path path = newObject();
    org.apache.hadoop.fs.Path other = newObject();
    byte[] v1 = random(10);
    try (FileSystem plain = FileSystem.newInstance(bucket, server.s3aConfiguration());
        FileSystem cached = FileSystem.newInstance(bucket, cachingConf("immutable"))) {
      write(plain, path, v1);
      write(plain, other, v1);
      server.store().reset();
      assertThat(readAndSettle(cached, path)).isEqualTo(v1);
      assertThat(server.store().heads()).isPositive();

      server.store().reset();
      assertThat(readAndSettle(cached, path)).isEqualTo(v1);
      assertThat(server.store().heads()).isZero();
      assertThat(server.store().gets()).isZero();

      server.store().reset();
      byte[] bytes = new byte[LENGTH];
      try (FSDataInputStream in = FutureIO.awaitFuture(cached.openFile(other).opt("fs.option.openfile.length", LENGTH).build())) {
        in.readFully(0, bytes);
      }
      assertThat(bytes).isEqualTo(v1);
      assertThat(server.store().heads()).as("a length passed to openFile is enough").isZero();
    }
  }

  @Test
  void strictOnTheLocalFileSystemSeesOverwritesThatChangeLengthOrTime() throws Exception {
    try (RawLocalFileSystem plain = new RawLocalFileSystem()) {
      plain.initialize(URI.create("file:///"), new Configuration());
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("local.bin").toUri());
      Configuration conf = localConf(tmp.resolve("local-cache"));
      conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
      try (FileSystem cached = FileSystem.newInstance(URI.create("file:///"), conf)) {
        byte[] v1 = random(11);
        write(plain, path, v1);
        assertThat(readAndSettle(cached, path)).isEqualTo(v1);
        long before = plain.getFileStatus(path).getModificationTime();

        byte[] v2 = random(12);
        write(plain, path, v2);
        long after = plain.getFileStatus(path).getModificationTime();
        // Known limit: the local file system has no ETag, so an overwrite with the same length within
        // the same modification-time tick (1 ms here, 1 s or 2 s on some file systems) keeps the old version key.
        assumeThat(after).as("overwrite landed in the same mtime tick").isNotEqualTo(before);
        assertThat(readAndSettle(cached, path)).isEqualTo(v2);
      }
    }
  }

  /**
   * A stream of a version the source no longer has (a status handed to openFile(), or a recent one in
   * ttl mode) on a store without ETags: its blocks are cached for the old version, the others would
   * come from the new file. The read returns one version's bytes or fails naming both versions, and
   * the new bytes are never cached under the old version.
   */
  @ParameterizedTest
  @ValueSource(strings = {"strict", "ttl"})
  void localStreamOfAnOverwrittenVersionNeverMixesVersions(String freshness) throws Exception {
    try (RawLocalFileSystem plain = new RawLocalFileSystem()) {
      plain.initialize(URI.create("file:///"), new Configuration());
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("overwritten.bin").toUri());
      Configuration conf = noReadAhead(localConf(tmp.resolve("local-cache")));
      conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
      conf.set("rubix.cache.freshness", freshness);
      conf.set("rubix.cache.freshness.ttl", "1h");
      try (FileSystem cached = FileSystem.newInstance(URI.create("file:///"), conf)) {
        byte[] v1 = random(13);
        write(plain, path, v1);
        FileStatus v1Status = plain.getFileStatus(path);
        byte[] block0 = new byte[BLOCK];
        ObjectVersion v1Version;
        try (FSDataInputStream in = FutureIO.awaitFuture(cached.openFile(path).withFileStatus(v1Status).build())) {
          in.readFully(0, block0);
          v1Version = version(in);
        }
        awaitWrites(((CachingFileSystem) cached).cacheEngine(), v1Version);

        byte[] v2 = random(14);
        write(plain, path, v2);
        plain.setTimes(path, v1Status.getModificationTime() + 5_000, -1);
        FileStatus v2Status = plain.getFileStatus(path);
        assertThat(v2Status.getLen()).isEqualTo(v1Status.getLen());

        byte[] bytes = new byte[LENGTH];
        // strict: the engine hands over the old status; ttl: the status of the first open is still trusted
        try (FSDataInputStream in = freshness.equals("strict") ? FutureIO.awaitFuture(cached.openFile(path).withFileStatus(v1Status).build())
            : cached.open(path)) {
          assertThat(version(in)).isEqualTo(v1Version);
          in.readFully(0, bytes);
          assertThat(bytes).as("one version's bytes").isIn(v1, v2);
        } catch (IOException e) {
          assertThat(e).isInstanceOf(StaleVersionException.class)
              .hasMessageContaining(path.toString())
              .hasMessageContaining(Long.toString(v1Status.getModificationTime()))
              .hasMessageContaining(Long.toString(v2Status.getModificationTime()))
              .hasMessageContaining(Long.toString(v1Status.getLen()));
        }
        awaitWrites(((CachingFileSystem) cached).cacheEngine(), v1Version);

        // nothing of v2 is cached under v1: every block v1's key holds has v1's bytes
        CacheEngine engine = ((CachingFileSystem) cached).cacheEngine();
        BlockRange state = engine.service().status(v1Version, 0, v1Version.blockCount(BLOCK));
        for (int b = 0; b < state.endBlock(); b++) {
          if (state.state(b) != BlockState.CACHED) {
            continue;
          }
          int length = v1Version.blockLength(b, BLOCK);
          ByteBuffer block = ByteBuffer.allocate(length);
          engine.store().read(java.nio.file.Path.of(state.dataFile()), v1Version, b, state.crc32c(b), (long) b * BLOCK, block);
          assertThat(block.array()).as("cached block %s of v1", b).isEqualTo(java.util.Arrays.copyOfRange(v1, b * BLOCK, b * BLOCK + length));
        }

        // and the next open reads v2 (in ttl mode too: a stale version is not trusted again)
        byte[] again = new byte[LENGTH];
        try (FSDataInputStream in = cached.open(path)) {
          in.readFully(0, again);
        }
        assertThat(again).isEqualTo(v2);
      }
    }
  }
}
