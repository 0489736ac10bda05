package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.DataFileLayout;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9's crash-consistency test, black box: a BookKeeper daemon in its own JVM and a writing reader
 * JVM ({@link ChaosReaderMain}) filling the cache with new objects (more than the cap, so it evicts
 * too). At a random point of the fill (a random number of commit calls the daemon has seen) the daemon,
 * the writer or both die with {@code kill -9}; the daemon is restarted on the same port and cache
 * directory, and then every published block must verify: for every object ever written, the daemon's
 * {@code status} of all its blocks, and for each {@link BlockState#CACHED} block its bytes read from the
 * data file equal the source's bytes and their CRC32C the recorded one. The restarted daemon charges
 * at least the bytes allocated to its data files, and both stay within the cap. The writer's reads, which
 * checked every byte, returned no wrong byte and did not fail.
 *
 * <p>Iterations: {@code -Dcrash.iterations} (default 10); seed {@code -Dcrash.seed} (printed). A longer run:
 * {@code ./mvnw -o -q -pl rubix-bookkeeper -am test -Dtest=CrashConsistencyTest -Dsurefire.failIfNoSpecifiedTests=false -Dcrash.iterations=50}
 */
@EnabledOnOs(OS.LINUX) // stat for the disk usage
class CrashConsistencyTest {
  private static final int BLOCK = 256 * 1024;
  private static final long CAP = 16L * BLOCK;
  private static final int OBJECTS_PER_ITERATION = 3;
  private static final String BUCKET = "s3a://crash/";
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  enum Kill { DAEMON, WRITER, WRITER_THEN_DAEMON, DAEMON_THEN_WRITER }

  @TempDir
  Path cacheDir;

  private final List<AutoCloseable> cleanup = new ArrayList<>();
  /** Every object written: key -> length (content from {@link ChaosContent}, version 0). */
  private final Map<String, Integer> objects = new LinkedHashMap<>();
  private S3Server s3;
  private FileSystem plain;

  @AfterEach
  void closeAll() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  @Test
  void everyPublishedBlockVerifiesAfterKillMinusNineDuringAFill() throws Exception {
    long seed = Long.getLong("crash.seed", System.nanoTime());
    int iterations = Integer.getInteger("crash.iterations", 10);
    System.out.println("CrashConsistencyTest seed=" + seed + " iterations=" + iterations + " (replay with -Dcrash.seed=" + seed + ")");
    Random random = new Random(seed);
    long started = System.nanoTime();
    s3 = track(S3Server.inMemory());
    s3.createBucket("crash");
    plain = track(FileSystem.newInstance(URI.create(BUCKET), s3.s3aConfiguration()));

    Map<String, String> settings = Map.of("rubix.cache.block.size", Integer.toString(BLOCK), "rubix.cache.max.size", Long.toString(CAP));
    BookKeeperProcess[] daemon = {BookKeeperProcess.start(cacheDir, settings)};
    cleanup.add(() -> daemon[0].close());
    int port = daemon[0].port();
    Map<String, String> restartSettings = new LinkedHashMap<>(settings);
    restartSettings.put("rubix.network.bookkeeper.server.port", Integer.toString(port));
    DiskUsageSampler sampler = new DiskUsageSampler(cacheDir);

    long verifiedBlocks = 0;
    long maxUsed = 0;
    long writerReads = 0;
    List<String> problems = new ArrayList<>();
    StringBuilder trail = new StringBuilder();
    for (int iteration = 0; iteration < iterations; iteration++) {
      List<String> fill = new ArrayList<>();
      for (int j = 0; j < OBJECTS_PER_ITERATION; j++) {
        String key = "crash-" + iteration + "-" + j + ".bin";
        // 6 to 10 blocks each: an iteration's objects never fit under the cap, so the fill keeps committing and evicting
        int length = 6 * BLOCK + random.nextInt(4 * BLOCK);
        put(key, length);
        fill.add(key);
      }
      Kill kill = Kill.values()[random.nextInt(Kill.values().length)];
      long commitsBefore;
      try (BookKeeperClient client = client(port)) {
        commitsBefore = client.daemonStats().get("rubix_bookkeeper_commit_calls");
      }
      int afterCommits = 1 + random.nextInt(20);
      Writer writer = track(new Writer(startWriter(port, seed + iteration, fill)));
      for (String key : fill) {
        writer.jvm.send("VERSION " + key + " 0 " + objects.get(key));
      }
      writer.jvm.send("GO");
      long target = commitsBefore + afterCommits;
      try (BookKeeperClient client = client(port)) {
        await("commit call " + target, () -> {
          try {
            return client.daemonStats().get("rubix_bookkeeper_commit_calls") >= target;
          } catch (IOException e) {
            throw new AssertionError("BookKeeper stats failed" + daemon[0].diagnostics(), e);
          }
        }, writer);
      }
      trail.append(iteration).append(':').append(kill).append("@+").append(afterCommits).append(' ');
      switch (kill) {
        case DAEMON -> {
          daemon[0].kill();
          daemon[0] = BookKeeperProcess.start(cacheDir, restartSettings);
          // the writer reconnects to the restarted daemon and commits there before it dies too
          try (BookKeeperClient client = client(port)) {
            await("a commit to the restarted daemon", () -> {
              try {
                return client.daemonStats().get("rubix_bookkeeper_commit_calls") >= 1;
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            }, writer);
          }
          writer.jvm.kill();
          daemon[0].kill();
        }
        case WRITER -> writer.jvm.kill();
        case WRITER_THEN_DAEMON -> {
          writer.jvm.kill();
          daemon[0].kill();
        }
        case DAEMON_THEN_WRITER -> {
          daemon[0].kill();
          writer.jvm.kill();
        }
        default -> throw new AssertionError(kill);
      }
      writer.awaitEnd();
      writerReads += writer.reads.get();
      problems.addAll(writer.problems);
      if (daemon[0].isAlive()) {
        daemon[0].kill(); // WRITER: the daemon dies too, with the dead writer's grants outstanding
      }
      daemon[0].close();
      daemon[0] = BookKeeperProcess.start(cacheDir, restartSettings);

      try (BookKeeperClient client = client(port)) {
        int verified = verifyEveryCachedBlock(client, problems, iteration, kill);
        verifiedBlocks += verified;
        long used = ChaosTest.charged(client.usage());
        maxUsed = Math.max(maxUsed, used);
        sampler.sample();
        if (used < sampler.lastData) {
          // no process holds the cache's files now: the charges must cover every allocated byte, or the cap does not hold
          problems.add("iteration " + iteration + " (kill " + kill + "): the restarted daemon charges " + used + " bytes, its data files allocate "
              + sampler.lastData);
        }
        System.out.printf("CrashConsistencyTest iteration %d: kill %s after %d commit calls, %d cached blocks verified, used %d bytes, "
                + "most data bytes allocated after a restart so far %d (cap %d), recovered blocks %d%n",
            iteration, kill, afterCommits, verified, used, sampler.maxData, CAP, client.daemonStats().get("rubix_cache_recovered_blocks"));
      }
    }
    System.out.printf("CrashConsistencyTest summary: seed=%d iterations=%d wall=%ds blocksVerified=%d writerReads=%d maxUsed=%d maxDataBytes=%d cap=%d "
            + "problems=%d%n", seed, iterations, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), verifiedBlocks, writerReads, maxUsed,
        sampler.maxData, CAP, problems.size());
    String context = " (seed " + seed + ", kills: " + trail + ")";
    assertThat(problems).as("blocks that do not verify, wrong or failed reads" + context).isEmpty();
    assertThat(verifiedBlocks).as("cached blocks found after the restarts").isPositive();
    assertThat(maxUsed).as("used bytes of the restarted daemon" + context).isLessThanOrEqualTo(CAP);
    assertThat(sampler.maxData).as("bytes allocated to data files after a restart (%s)%s", sampler.worst, context).isLessThanOrEqualTo(CAP);
  }

  /** Checks every CACHED block of every object against the source and its CRC32C; returns how many it checked. */
  private int verifyEveryCachedBlock(BookKeeperClient client, List<String> problems, int iteration, Kill kill) throws IOException {
    int verified = 0;
    for (Map.Entry<String, Integer> object : objects.entrySet()) {
      ObjectVersion version = versionOf(object.getKey());
      byte[] source = ChaosContent.bytes(object.getKey(), 0, object.getValue());
      BlockRange range = client.status(version, 0, version.blockCount(BLOCK));
      for (int block = 0; block < range.endBlock(); block++) {
        if (range.state(block) != BlockState.CACHED) {
          continue;
        }
        String where = "iteration " + iteration + " (kill " + kill + "): block " + block + " of " + version + " in " + range.dataFile();
        int length = version.blockLength(block, BLOCK);
        byte[] cached = new byte[length];
        try (FileChannel channel = FileChannel.open(Path.of(range.dataFile()), StandardOpenOption.READ)) {
          long fileLength = channel.size();
          ByteBuffer buffer = ByteBuffer.wrap(cached);
          long at = (long) block * BLOCK;
          while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
              break;
            }
            at += n;
          }
          if (fileLength != DataFileLayout.liveLength(version)) {
            problems.add(where + ": data file length " + fileLength + ", live length " + DataFileLayout.liveLength(version));
          }
        } catch (IOException e) {
          problems.add(where + ": cannot read the data file: " + e);
          continue;
        }
        int start = block * BLOCK;
        if (!Arrays.equals(cached, 0, length, source, start, start + length)) {
          int wrong = 0;
          for (int i = 0; i < length; i++) {
            wrong += cached[i] != source[start + i] ? 1 : 0;
          }
          problems.add(where + ": " + wrong + " of " + length + " bytes differ from the source");
        }
        CRC32C crc = new CRC32C();
        crc.update(source, start, length);
        if ((int) crc.getValue() != range.crc32c(block)) {
          problems.add(where + ": recorded CRC32C " + range.crc32c(block) + ", source's " + (int) crc.getValue());
        }
        verified++;
      }
    }
    return verified;
  }

  // ---------------------------------------------------------------------------------------------

  private <T extends AutoCloseable> T track(T resource) {
    cleanup.add(resource);
    return resource;
  }

  private void put(String key, int length) throws IOException {
    try (FSDataOutputStream out = plain.create(new org.apache.hadoop.fs.Path(BUCKET + key))) {
      out.write(ChaosContent.bytes(key, 0, length));
    }
    objects.put(key, length);
  }

  private ObjectVersion versionOf(String key) throws IOException {
    FileStatus status = plain.getFileStatus(new org.apache.hadoop.fs.Path(BUCKET + key));
    String etag = status instanceof EtagSource source && source.getEtag() != null ? source.getEtag() : "";
    return new ObjectVersion(status.getPath().toString(), status.getLen(), status.getModificationTime(), etag);
  }

  private BookKeeperClient client(int port) {
    Configuration conf = BookKeeperTestSupport.clientConf(cacheDir, port);
    return BookKeeperTestSupport.client(conf, BLOCK);
  }

  private ChildJvm startWriter(int port, long seed, List<String> keys) throws IOException {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
    List<String> args = new ArrayList<>();
    for (String key : List.of("fs.s3a.endpoint", "fs.s3a.endpoint.region", "fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.path.style.access",
        "fs.s3a.connection.ssl.enabled", "fs.s3a.aws.credentials.provider", "fs.s3a.change.detection.version.required",
        "fs.s3a.impl.disable.cache", "fs.s3a.attempts.maximum", "fs.s3a.retry.limit", "fs.s3a.impl", "rubix.cache.dirs",
        "rubix.cluster.embedded.mode", "rubix.network.bookkeeper.server.port", "rubix.network.client.read.timeout",
        "rubix.network.client.backoff.max", "rubix.cache.block.size")) {
      args.add("-D" + key + "=" + conf.get(key));
    }
    int minLength = keys.stream().mapToInt(objects::get).min().orElseThrow();
    args.addAll(List.of("--seed", Long.toString(seed), "--threads", "2", "--min-length", Integer.toString(minLength), BUCKET));
    return ChildJvm.start("crash-writer", ChaosReaderMain.class, List.of("-Xmx256m"), args);
  }

  /** Polls {@code condition} until it holds; fails after 90 s or when the writer ended first. */
  private static void await(String what, BooleanSupplier condition, Writer writer) throws InterruptedException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (writer.ended.get() != 0) {
        throw new AssertionError("Writer " + writer.jvm.name() + " ended while waiting for " + what + "; " + writer.problems + writer.jvm.diagnostics());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what + writer.jvm.diagnostics());
      }
      // polling interval, not synchronization: the condition decides
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  /** A writing reader JVM and the thread that reads its report lines until it dies. */
  private static final class Writer implements AutoCloseable {
    final ChildJvm jvm;
    final AtomicLong reads = new AtomicLong();
    final AtomicLong ended = new AtomicLong();
    final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final Thread collector;

    Writer(ChildJvm jvm) {
      this.jvm = jvm;
      this.collector = new Thread(this::collect, "collect-" + jvm.name());
      collector.setDaemon(true);
      collector.start();
    }

    private void collect() {
      try {
        while (true) {
          String line = jvm.awaitLine(l -> true, Duration.ofMinutes(30));
          if (line.startsWith("READ ")) {
            reads.incrementAndGet();
          } else if (line.startsWith("WRONG ") || line.startsWith("FAIL ") || line.startsWith("TRACE ") || line.startsWith("CHANGED ")) {
            // nothing changes the objects of this test: a change detected is a failure too
            problems.add(jvm.name() + ": " + line);
          }
        }
      } catch (AssertionError | InterruptedException | RuntimeException e) {
        ended.set(1); // the writer's output ended: it was killed
      }
    }

    void awaitEnd() throws InterruptedException {
      collector.join(TIMEOUT.toMillis());
    }

    @Override
    public void close() {
      jvm.close();
    }
  }
}
