package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The BookKeeper as a real daemon process shared by reading JVMs: cross-JVM hits and coalescing,
 * kill -9 of the daemon under load, a crash between a block's write and its commit, and the disk
 * cap under eviction. The S3 server (S3Proxy with a {@link io.rubix.testing.CountingBlobStore}) runs
 * in this JVM, so what crossed the "network" is counted where it was served.
 */
class MultiProcessCacheTest {
  private static final int MIB = 1024 * 1024;
  private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(60);

  private static S3Server s3;
  private static FileSystem plain;

  @TempDir
  Path cacheDir;

  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("bucket");
    plain = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration());
  }

  @AfterAll
  static void stopS3() throws IOException {
    plain.close();
    s3.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    s3.store().setFirstByteLatency(Duration.ZERO);
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  @Test
  void secondReaderJvmIsServedFromTheCache() throws Exception {
    int size = 6 * MIB + 123;
    byte[] data = put("sequential.bin", size);
    BookKeeperProcess bookKeeper = track(BookKeeperProcess.start(cacheDir, Map.of()));

    s3.store().reset();
    Map<String, String> first = runReader(bookKeeper.port(), "s3a://bucket/sequential.bin");
    assertThat(first.get("sha256")).isEqualTo(sha256(data));
    assertThat(first.get("bytes")).isEqualTo(Integer.toString(size));
    assertThat(s3.store().bytesServed()).isEqualTo(size);
    assertThat(counter(first, CacheCounter.SOURCE_BYTES)).isEqualTo(size);

    s3.store().reset();
    Map<String, String> second = runReader(bookKeeper.port(), "s3a://bucket/sequential.bin");
    assertThat(second.get("sha256")).isEqualTo(sha256(data));
    assertThat(s3.store().gets()).as("S3 GETs for the second JVM").isZero();
    assertThat(s3.store().bytesServed()).isZero();
    assertThat(counter(second, CacheCounter.SOURCE_BYTES)).isZero();
    assertThat(counter(second, CacheCounter.HIT_BYTES)).isEqualTo(size);
  }

  @Test
  void concurrentColdReaderJvmsFetchEachBlockOnce() throws Exception {
    int size = 10 * MIB + 4321;
    byte[] data = put("concurrent.bin", size);
    BookKeeperProcess bookKeeper = track(BookKeeperProcess.start(cacheDir, Map.of()));
    ChildJvm one = track(startReader(bookKeeper.port(), "s3a://bucket/concurrent.bin", true));
    ChildJvm two = track(startReader(bookKeeper.port(), "s3a://bucket/concurrent.bin", true));
    one.awaitLine("READY"::equals, CHILD_TIMEOUT);
    two.awaitLine("READY"::equals, CHILD_TIMEOUT);
    // a slow first byte keeps the first reader's fetches in flight while the second asks for the same blocks
    s3.store().setFirstByteLatency(Duration.ofMillis(300));
    s3.store().reset();
    one.send("GO");
    two.send("GO");
    Map<String, String> a = result(one);
    Map<String, String> b = result(two);

    assertThat(a.get("sha256")).isEqualTo(sha256(data));
    assertThat(b.get("sha256")).isEqualTo(sha256(data));
    // every block is granted to exactly one fetcher (the metadata service coalesces across JVMs), and
    // each fetch is one ranged GET of exactly the granted blocks: no byte is served twice
    assertThat(s3.store().bytesServed()).as("bytes served by S3 to both JVMs").isEqualTo(size);
    assertThat(counter(a, CacheCounter.SOURCE_BYTES) + counter(b, CacheCounter.SOURCE_BYTES)).isEqualTo(size);
    assertThat(s3.store().gets()).isEqualTo(counter(a, CacheCounter.SOURCE_REQUESTS) + counter(b, CacheCounter.SOURCE_REQUESTS));
    assertThat(counter(a, CacheCounter.FALLBACK_INFLIGHT) + counter(b, CacheCounter.FALLBACK_INFLIGHT)).isZero();
    assertThat(counter(a, CacheCounter.INFLIGHT_WAITS) + counter(b, CacheCounter.INFLIGHT_WAITS))
        .as("the readers overlapped: one waited for blocks the other was fetching").isPositive();
  }

  @Test
  void killMinusNineUnderLoadFailsNoReadAndRestartIsWarm() throws Exception {
    byte[] warm = put("warm.bin", 4 * MIB + 11);
    byte[] cold = put("cold.bin", 6 * MIB + 5);
    BookKeeperProcess first = track(BookKeeperProcess.start(cacheDir, Map.of()));
    int port = first.port();
    readAll(clientConf(port), "warm.bin", warm);

    s3.store().setFirstByteLatency(Duration.ofMillis(20));
    Configuration conf = clientConf(port);
    FileSystem fs = track(FileSystem.newInstance(URI.create("s3a://bucket/"), conf));
    CacheStats stats = ((CachingS3AFileSystem) fs).cacheEngine().stats();
    LoopingReader reader = track(new LoopingReader(fs, Map.of("warm.bin", warm, "cold.bin", cold)));
    await("20 reads with the daemon up", () -> reader.reads.get() >= 20);

    first.kill();
    long readsAtKill = reader.reads.get();
    long fallbacksAtKill = stats.get(CacheCounter.FALLBACK_METADATA);
    await("10 reads with the daemon dead", () -> reader.reads.get() >= readsAtKill + 10);
    assertThat(stats.get(CacheCounter.FALLBACK_METADATA)).isGreaterThan(fallbacksAtKill);

    // the supervisor restarts it on its configured port over the same cache directory
    BookKeeperProcess second = track(BookKeeperProcess.start(cacheDir, Map.of("rubix.network.bookkeeper.server.port", Integer.toString(port))));
    long hitsAtRestart = stats.get(CacheCounter.HIT_BYTES);
    long readsAtRestart = reader.reads.get();
    await("cache hits through the restarted daemon", () -> stats.get(CacheCounter.HIT_BYTES) > hitsAtRestart && reader.reads.get() >= readsAtRestart + 10);
    reader.close();

    assertThat(reader.errors).as("failed reads").isEmpty();
    assertThat(reader.wrongBytes.get()).as("reads that returned wrong bytes").isZero();
    assertThat(reader.reads.get()).isGreaterThanOrEqualTo(readsAtRestart + 10);

    try (BookKeeperClient client = client(second.port())) {
      assertThat(client.daemonStats().get("rubix_cache_recovered_blocks")).isGreaterThanOrEqualTo(warm.length / MIB + 1);
    }
    s3.store().reset();
    readAll(clientConf(second.port()), "warm.bin", warm);
    assertThat(s3.store().gets()).as("S3 GETs for blocks cached before the kill").isZero();
  }

  @Test
  void blockWrittenButNotCommittedBeforeACrashIsNotServed() throws Exception {
    int size = 3 * MIB + 77;
    byte[] data = put("torn.bin", size);
    ObjectVersion version = versionOf("torn.bin");
    BookKeeperProcess first = track(BookKeeperProcess.start(cacheDir, Map.of()));
    long staleLease;
    try (BookKeeperClient client = client(first.port())) {
      // block 1: granted, half its bytes written (a torn write), never committed
      BlockRange grant = client.acquire(version, 1, 2);
      assertThat(grant.state(1)).isEqualTo(BlockState.GRANTED);
      staleLease = grant.leaseId();
      write(grant.dataFile(), MIB, Arrays.copyOfRange(data, MIB, MIB + MIB / 2));
      // block 0: written and committed, so it must survive the crash
      BlockRange committed = client.acquire(version, 0, 1);
      write(committed.dataFile(), 0, Arrays.copyOfRange(data, 0, MIB));
      assertThat(client.commit(committed.leaseId(), new int[] {0}, new int[] {crc32c(data, 0, MIB)})).isEqualTo(1);
    }
    first.kill();

    BookKeeperProcess second = track(BookKeeperProcess.start(cacheDir, Map.of()));
    try (BookKeeperClient client = client(second.port())) {
      BlockRange status = client.status(version, 0, version.blockCount(MIB));
      assertThat(status.state(0)).isEqualTo(BlockState.CACHED);
      assertThat(status.state(1)).isEqualTo(BlockState.MISSING);

      // a lease of the dead daemon commits nothing on the new one, even when a new lease got granted
      BlockRange regrant = client.acquire(version, 1, 2);
      assertThat(regrant.state(1)).isEqualTo(BlockState.GRANTED);
      assertThat(client.commit(staleLease, new int[] {1}, new int[] {crc32c(data, MIB, MIB)}))
          .as("commit under lease %s of the previous daemon (new lease %s)", staleLease, regrant.leaseId()).isZero();
      assertThat(client.status(version, 1, 2).state(1)).isEqualTo(BlockState.IN_FLIGHT);
      client.abort(regrant.leaseId(), new int[] {1}, false);
    }

    s3.store().reset();
    readAll(clientConf(second.port()), "torn.bin", data);
    assertThat(s3.store().bytesServed()).as("everything but block 0 comes from S3").isEqualTo(size - MIB);
  }

  /**
   * Issue 9 (found by {@link ChaosTest}): a block granted before a kill -9 may be on disk, written
   * before the crash or, by the grantee that is still fetching, after the restart; the restarted
   * daemon must keep charging it, or the bytes allocated to its data files exceed what it accounts
   * for (and so the cap).
   */
  @Test
  @EnabledOnOs(OS.LINUX) // stat -c
  void blocksGrantedBeforeACrashStayChargedAfterTheRestart() throws Exception {
    int size = 3 * MIB + 77;
    byte[] data = put("granted.bin", size);
    ObjectVersion version = versionOf("granted.bin");
    BookKeeperProcess first = track(BookKeeperProcess.start(cacheDir, Map.of()));
    String dataFile;
    try (BookKeeperClient client = client(first.port())) {
      BlockRange grant = client.acquire(version, 0, 4);
      for (int block = 0; block < 4; block++) {
        assertThat(grant.state(block)).isEqualTo(BlockState.GRANTED);
      }
      dataFile = grant.dataFile();
      write(dataFile, 0, Arrays.copyOfRange(data, 0, MIB));
      assertThat(client.commit(grant.leaseId(), new int[] {0}, new int[] {crc32c(data, 0, MIB)})).isEqualTo(1);
      // block 1 is written, the daemon dies before its commit
      write(dataFile, MIB, Arrays.copyOfRange(data, MIB, 2 * MIB));
    }
    first.kill();

    BookKeeperProcess second = track(BookKeeperProcess.start(cacheDir, Map.of("rubix.network.bookkeeper.server.port", Integer.toString(first.port()))));
    // the dead daemon's grantee still fetches block 2 and writes it into the recovered data file
    write(dataFile, 2 * MIB, Arrays.copyOfRange(data, 2 * MIB, 3 * MIB));
    DiskUsageSampler sampler = new DiskUsageSampler(cacheDir);
    sampler.sample();
    try (BookKeeperClient client = client(second.port())) {
      assertThat(client.status(version, 0, 1).state(0)).isEqualTo(BlockState.CACHED);
      assertThat(client.usage().usedBytes()).as("bytes the restarted daemon charges; allocated: %s", sampler.worst)
          .isGreaterThanOrEqualTo(sampler.maxData);
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX) // stat -c and /proc/<pid>/fd
  void diskUsageStaysUnderTheCapWhileReadersEvictEachOther() throws Exception {
    int blockSize = 256 * 1024;
    long cap = 3L * blockSize;
    Map<String, byte[]> objects = new LinkedHashMap<>();
    for (int i = 0; i < 4; i++) {
      // sizes are multiples of the file system's 4 KiB allocation unit, so allocated bytes equal charged bytes
      objects.put("evict-" + i + ".bin", put("evict-" + i + ".bin", 4 * blockSize + (i + 1) * 64 * 1024));
    }
    Map<String, String> settings = Map.of("rubix.cache.block.size", Integer.toString(blockSize), "rubix.cache.max.size", Long.toString(cap));
    BookKeeperProcess bookKeeper = track(BookKeeperProcess.start(cacheDir, settings));
    Configuration conf = clientConf(bookKeeper.port());
    settings.forEach(conf::set);
    FileSystem fs = track(FileSystem.newInstance(URI.create("s3a://bucket/"), conf));

    DiskUsageSampler sampler = new DiskUsageSampler(cacheDir);
    List<LoopingReader> readers = new ArrayList<>();
    for (Map.Entry<String, byte[]> object : objects.entrySet()) {
      readers.add(track(new LoopingReader(fs, Map.of(object.getKey(), object.getValue()))));
    }
    await("every reader read its object 15 times", () -> {
      sampler.sample();
      return readers.stream().allMatch(r -> r.reads.get() >= 15);
    });
    for (LoopingReader reader : readers) {
      reader.close();
      assertThat(reader.errors).isEmpty();
      assertThat(reader.wrongBytes.get()).isZero();
    }
    sampler.sample();
    try (BookKeeperClient client = client(bookKeeper.port(), blockSize)) {
      assertThat(client.usage().evictions()).as("evictions").isPositive();
    }
    System.out.printf("disk usage: %d samples, max data bytes %d (cap %d), max metadata bytes %d%n",
        sampler.samples, sampler.maxData, cap, sampler.maxMeta);
    assertThat(sampler.samples).isGreaterThan(10);
    assertThat(sampler.maxData).as("most bytes allocated to cache data files (%s), cap %s", sampler.worst, cap).isLessThanOrEqualTo(cap);
    // one small journal per cached object; at most a few objects fit under a 3-block cap
    assertThat(sampler.maxMeta).isLessThanOrEqualTo(64 * 1024);
  }

  // ---------------------------------------------------------------------------------------------

  private <T extends AutoCloseable> T track(T resource) {
    cleanup.add(resource);
    return resource;
  }

  private static byte[] put(String key, int size) throws IOException {
    byte[] data = new byte[size];
    new Random(key.hashCode()).nextBytes(data);
    try (FSDataOutputStream out = plain.create(new org.apache.hadoop.fs.Path("s3a://bucket/" + key))) {
      out.write(data);
    }
    return data;
  }

  private static ObjectVersion versionOf(String key) throws IOException {
    FileStatus status = plain.getFileStatus(new org.apache.hadoop.fs.Path("s3a://bucket/" + key));
    String etag = status instanceof EtagSource source && source.getEtag() != null ? source.getEtag() : "";
    return new ObjectVersion(status.getPath().toString(), status.getLen(), status.getModificationTime(), etag);
  }

  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  private BookKeeperClient client(int port) {
    return client(port, MIB);
  }

  private BookKeeperClient client(int port, int blockSize) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cluster.embedded.mode", "false");
    conf.set("rubix.network.bookkeeper.server.port", Integer.toString(port));
    return new BookKeeperClient(ClientConfig.from(conf), blockSize, System::nanoTime);
  }

  private static void readAll(Configuration conf, String key, byte[] expected) throws IOException {
    byte[] bytes = new byte[expected.length];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://bucket/" + key))) {
      in.readFully(0, bytes);
    }
    assertThat(bytes).isEqualTo(expected);
  }

  private ChildJvm startReader(int port, String object, boolean awaitGo) throws IOException {
    Configuration conf = clientConf(port);
    List<String> args = new ArrayList<>();
    for (String key : List.of("fs.s3a.endpoint", "fs.s3a.endpoint.region", "fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.path.style.access",
        "fs.s3a.connection.ssl.enabled", "fs.s3a.aws.credentials.provider", "fs.s3a.change.detection.version.required",
        "fs.s3a.impl.disable.cache", "fs.s3a.attempts.maximum", "fs.s3a.retry.limit", "fs.s3a.impl", "rubix.cache.dirs",
        "rubix.cluster.embedded.mode", "rubix.network.bookkeeper.server.port", "rubix.network.client.read.timeout",
        "rubix.network.client.backoff.max", "rubix.cache.block.size")) {
      args.add("-D" + key + "=" + conf.get(key));
    }
    if (awaitGo) {
      args.add("--await-go");
    }
    args.add(object);
    return ChildJvm.start("reader", ReaderMain.class, List.of("-Xmx256m"), args);
  }

  private Map<String, String> runReader(int port, String object) throws Exception {
    ChildJvm reader = track(startReader(port, object, false));
    return result(reader);
  }

  private static Map<String, String> result(ChildJvm reader) throws InterruptedException {
    String line = reader.awaitLine(l -> l.startsWith("RESULT "), CHILD_TIMEOUT);
    assertThat(reader.awaitExit(CHILD_TIMEOUT)).as("exit code of %s", reader.name()).isZero();
    Map<String, String> values = new LinkedHashMap<>();
    for (String field : line.substring("RESULT ".length()).split(" ")) {
      values.put(field.substring(0, field.indexOf('=')), field.substring(field.indexOf('=') + 1));
    }
    System.out.println(reader.name() + ": " + values);
    return values;
  }

  private static long counter(Map<String, String> result, CacheCounter counter) {
    return Long.parseLong(result.get(counter.name()));
  }

  private static String sha256(byte[] data) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
  }

  private static int crc32c(byte[] data, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, offset, length);
    return (int) crc.getValue();
  }

  private static void write(String dataFile, long position, byte[] bytes) throws IOException {
    try (FileChannel channel = FileChannel.open(Path.of(dataFile), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      long at = position;
      while (buffer.hasRemaining()) {
        at += channel.write(buffer, at);
      }
    }
  }

  /** Polls {@code condition} until it holds; fails after 60 s. */
  private static void await(String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for: " + what);
      }
      // polling interval, not synchronization: the condition decides
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  @FunctionalInterface
  private interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * A thread that reads its objects through one file system until closed: whole sequential passes and
   * random positioned reads, each checked against the expected bytes. Exceptions and wrong bytes are
   * recorded, never thrown.
   */
  private static final class LoopingReader implements AutoCloseable {
    private static final AtomicLong SEEDS = new AtomicLong(42);
    final AtomicLong reads = new AtomicLong();
    final AtomicLong wrongBytes = new AtomicLong();
    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    LoopingReader(FileSystem fs, Map<String, byte[]> objects) {
      List<String> keys = List.copyOf(objects.keySet());
      Random random = new Random(SEEDS.getAndIncrement());
      this.thread = new Thread(() -> {
        byte[] buffer = new byte[512 * 1024];
        while (!stop.get()) {
          String key = keys.get(random.nextInt(keys.size()));
          byte[] expected = objects.get(key);
          try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://bucket/" + key))) {
            if (random.nextInt(3) == 0) {
              long at = 0;
              int n;
              while ((n = in.read(buffer, 0, buffer.length)) > 0) {
                if (!Arrays.equals(buffer, 0, n, expected, (int) at, (int) at + n)) {
                  wrongBytes.incrementAndGet();
                }
                at += n;
              }
              if (at != expected.length) {
                errors.add(new AssertionError("Read " + at + " of " + expected.length + " bytes of " + key));
              }
            } else {
              int position = random.nextInt(expected.length);
              int length = Math.min(expected.length - position, 1 + random.nextInt(3 * MIB / 2));
              byte[] bytes = new byte[length];
              in.readFully(position, bytes);
              if (!Arrays.equals(bytes, 0, length, expected, position, position + length)) {
                wrongBytes.incrementAndGet();
              }
            }
          } catch (IOException | RuntimeException e) {
            errors.add(e);
          }
          reads.incrementAndGet();
        }
      }, "looping-reader");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() {
      stop.set(true);
      try {
        thread.join(TimeUnit.SECONDS.toMillis(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        throw new AssertionError("Reader thread did not stop within 60 s");
      }
    }
  }
}
