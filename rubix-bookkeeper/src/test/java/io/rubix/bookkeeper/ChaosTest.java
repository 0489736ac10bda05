package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.bookkeeper.cli.RubixCli;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9's chaos test, black box: a BookKeeper daemon in its own JVM, two reader JVMs
 * ({@link ChaosReaderMain}, two threads each) reading through {@link CachingS3AFileSystem} in daemon
 * mode, and a seeded driver in this JVM that, between reads, clears the cache ({@code rubix clear}),
 * evicts one object ({@code rubix evict}), invalidates one version (Thrift {@code invalidate}),
 * overwrites an object with the same length or another length, fills the cap through its own caching
 * file system, and kills the daemon with {@code kill -9} and restarts it on the same port and cache
 * directory.
 *
 * <p>Oracle: every read opens a fresh stream, and its bytes must equal the same range of one version
 * the object had, and that version must have been current at some time between the read's open and
 * its end (versions are announced to the readers before they are written; each has its window).
 * A read refused by S3A's change detection because the object changed under its stream is counted
 * apart, as plain S3A fails it the same way (and it must overlap an overwrite of that object, or it is
 * a failure). Asserted at the end: no wrong byte, no stale version, no
 * other failed read, the daemon's own accounting (used + reserved) never over the cap, the bytes
 * allocated on disk never over the cap in any sample (while a daemon ran or not), and the daemon
 * alive.
 *
 * <p>Disk usage is sampled about 20 times a second with {@link DiskUsageSampler}: the data files in
 * the cache directory plus deleted data files still held open by this JVM, the daemon and both reader
 * JVMs (through their {@code /proc/<pid>/fd}). It cannot see what happens between two samples, and a
 * sample is not atomic (listed, then stat'ed file by file).
 *
 * <p>Replay a run with {@code -Dchaos.seed=<seed>} (printed first); {@code -Dchaos.duration} sets
 * the driver's run time (default 60s). A longer run:
 * {@code ./mvnw -o -q -pl rubix-bookkeeper -am test -Dtest=ChaosTest -Dsurefire.failIfNoSpecifiedTests=false -Dchaos.duration=10m}
 */
@EnabledOnOs(OS.LINUX) // stat and /proc/<pid>/fd for the disk usage
class ChaosTest {
  private static final int BLOCK = 256 * 1024;
  private static final int HOT_OBJECTS = 4;
  /** Lengths of every version of a hot object lie in [MIN_LENGTH, MAX_LENGTH]: 7 to 11 blocks. */
  private static final int MIN_LENGTH = 7 * BLOCK - 1234;
  private static final int MAX_LENGTH = 11 * BLOCK + 4321;
  private static final long CAP = 4L * BLOCK * HOT_OBJECTS;
  private static final int FILLERS = 2;
  private static final int FILLER_LENGTH = 8 * BLOCK + 77;
  private static final String BUCKET = "s3a://chaos/";
  private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(90);

  enum Op { CLEAR, EVICT, INVALIDATE, OVERWRITE_SAME_LENGTH, OVERWRITE_OTHER_LENGTH, FILL, KILL_AND_RESTART }

  private static final Map<Op, Integer> WEIGHTS = Map.of(Op.CLEAR, 2, Op.EVICT, 3, Op.INVALIDATE, 3, Op.OVERWRITE_SAME_LENGTH, 3,
      Op.OVERWRITE_OTHER_LENGTH, 3, Op.FILL, 3, Op.KILL_AND_RESTART, 1);

  @TempDir
  Path cacheDir;

  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final Map<String, List<Window>> history = new ConcurrentHashMap<>();
  private S3Server s3;
  private FileSystem plain;

  /** Version {@code n} of an object: written from {@code putStart} to {@code putEnd} (wall clock, ms; 0 before it is done). */
  private static final class Window {
    final int version;
    final int length;
    final long putStart;
    volatile long putEnd;

    Window(int version, int length, long putStart) {
      this.version = version;
      this.length = length;
      this.putStart = putStart;
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  /**
   * Also asserts the cap over the bytes allocated on disk, in every sample, whether a daemon ran or
   * not. Before a dropped object's charge was kept until its files are truncated this failed 2 runs in
   * 6; after, 1 in 4: a write that raced the drop left a block in the dropped inode that an idle reader
   * JVM kept allocated (4378624 bytes for a 4194304-byte cap, seed 9311972071503). The writer now
   * truncates such a file again, and the daemon holds the charge of blocks a grantee may still be
   * writing until it is done ({@code FencedWrites}).
   */
  @Test
  void readersSeeOnlyWholeVersionsAndTheCapHoldsOnDiskWhateverHappensToTheCache() throws Exception {
    chaos();
  }

  private void chaos() throws Exception {
    long seed = Long.getLong("chaos.seed", System.nanoTime());
    Duration duration = parseDuration(System.getProperty("chaos.duration", "60s"));
    System.out.println("ChaosTest seed=" + seed + " duration=" + duration + " (replay with -Dchaos.seed=" + seed + ")");
    Random random = new Random(seed);
    long started = System.nanoTime();
    long startMillis = System.currentTimeMillis();

    s3 = track(S3Server.inMemory());
    s3.createBucket("chaos");
    plain = track(FileSystem.newInstance(URI.create(BUCKET), s3.s3aConfiguration()));
    List<String> hot = new ArrayList<>();
    for (int i = 0; i < HOT_OBJECTS; i++) {
      String key = "hot-" + i + ".bin";
      hot.add(key);
      int length = MIN_LENGTH + random.nextInt(MAX_LENGTH - MIN_LENGTH + 1);
      Window first = new Window(0, length, 0);
      put(key, first);
      history.put(key, new ArrayList<>(List.of(first)));
    }
    for (int i = 0; i < FILLERS; i++) {
      put("fill-" + i + ".bin", new Window(0, FILLER_LENGTH, 0));
    }

    Map<String, String> daemonSettings = Map.of("rubix.cache.block.size", Integer.toString(BLOCK), "rubix.cache.max.size", Long.toString(CAP));
    AtomicReference<BookKeeperProcess> daemon = new AtomicReference<>(BookKeeperProcess.start(cacheDir, daemonSettings));
    cleanup.add(() -> daemon.get().close());
    int port = daemon.get().port();
    DiskUsageSampler sampler = new DiskUsageSampler(cacheDir);
    sampler.watch(daemon.get().pid());

    List<Reader> readers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Reader reader = track(new Reader(startReader(port, seed + 1 + i)));
      sampler.watch(reader.jvm.pid());
      readers.add(reader);
    }
    for (Reader reader : readers) {
      reader.jvm.awaitLine("READY"::equals, CHILD_TIMEOUT);
      reader.start();
      for (String key : hot) {
        announce(reader, key, history.get(key).get(0));
      }
    }
    for (Reader reader : readers) {
      for (String key : hot) {
        awaitCondition("ACK of " + key + " v0", () -> reader.acks.contains(key + " 0"), reader);
      }
      reader.jvm.send("GO");
    }

    ScheduledExecutorService sampling = Executors.newSingleThreadScheduledExecutor();
    ConcurrentLinkedQueue<Throwable> samplingErrors = new ConcurrentLinkedQueue<>();
    AtomicReference<String> overCap = new AtomicReference<>();
    // odd while a daemon runs (from its STARTED line to its kill), even while none does
    AtomicLong daemonEpoch = new AtomicLong(1);
    AtomicLong maxDataDaemonUp = new AtomicLong();
    sampling.scheduleWithFixedDelay(() -> {
      try {
        long epoch = daemonEpoch.get();
        sampler.sample();
        boolean up = epoch % 2 == 1 && daemonEpoch.get() == epoch;
        if (up) {
          maxDataDaemonUp.accumulateAndGet(sampler.lastData, Math::max);
        }
        if (sampler.lastData > CAP && overCap.get() == null) {
          overCap.set((up ? "daemon up " : "daemon down ") + explainOverCap(sampler, port, startMillis));
        }
      } catch (IOException | RuntimeException e) {
        samplingErrors.add(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, 0, 50, TimeUnit.MILLISECONDS);
    cleanup.add(sampling::shutdownNow);

    Configuration conf = clientConf(port);
    FileSystem caching = track(FileSystem.newInstance(URI.create(BUCKET), conf));
    Map<Op, Integer> ops = new EnumMap<>(Op.class);
    List<String> driverFailures = new ArrayList<>();
    long maxReportedUsed = 0;
    long fillBytes = 0;
    long deadline = System.nanoTime() + duration.toNanos();
    List<Op> weighted = new ArrayList<>();
    WEIGHTS.forEach((op, weight) -> {
      for (int i = 0; i < weight; i++) {
        weighted.add(op);
      }
    });
    weighted.sort(null);
    StringBuilder trail = new StringBuilder();
    BookKeeperClient client = client(port);
    try {
      while (System.nanoTime() < deadline) {
        Op op = weighted.get(random.nextInt(weighted.size()));
        String key = hot.get(random.nextInt(hot.size()));
        trail.append(op).append(op == Op.CLEAR || op == Op.FILL || op == Op.KILL_AND_RESTART ? "" : "(" + key + ")")
            .append('@').append(System.currentTimeMillis() - startMillis).append("ms ");
        switch (op) {
          case CLEAR -> cli(port, "clear");
          case EVICT -> cli(port, "evict", BUCKET + key);
          case INVALIDATE -> client.invalidate(versionOf(key));
          case OVERWRITE_SAME_LENGTH, OVERWRITE_OTHER_LENGTH -> {
            List<Window> versions = history.get(key);
            Window last = versions.get(versions.size() - 1);
            int length = op == Op.OVERWRITE_SAME_LENGTH ? last.length : otherLength(random, last.length);
            Window next = new Window(last.version + 1, length, 0);
            for (Reader reader : readers) {
              announce(reader, key, next);
            }
            for (Reader reader : readers) {
              awaitCondition("ACK of " + key + " v" + next.version, () -> reader.acks.contains(key + " " + next.version), reader);
            }
            Window timed = new Window(next.version, length, System.currentTimeMillis());
            synchronized (versions) {
              versions.add(timed);
            }
            put(key, timed);
          }
          case FILL -> {
            for (int i = 0; i < FILLERS; i++) {
              String filler = "fill-" + i + ".bin";
              byte[] got = new byte[FILLER_LENGTH];
              try (FSDataInputStream in = caching.open(new org.apache.hadoop.fs.Path(BUCKET + filler))) {
                in.readFully(0, got);
                if (!Arrays.equals(got, ChaosContent.bytes(filler, 0, FILLER_LENGTH))) {
                  driverFailures.add("wrong bytes reading " + filler);
                }
                fillBytes += FILLER_LENGTH;
              } catch (IOException e) {
                driverFailures.add("reading " + filler + ": " + e);
              }
            }
          }
          case KILL_AND_RESTART -> {
            BookKeeperProcess dead = daemon.get();
            daemonEpoch.incrementAndGet();
            dead.kill();
            sampler.unwatch(dead.pid());
            dead.close();
            long readsAtKill = totalReads(readers);
            // the readers keep reading from the source while no daemon runs
            awaitCondition("reads with the daemon dead", () -> totalReads(readers) >= readsAtKill + 4, readers.get(0));
            BookKeeperProcess restarted = BookKeeperProcess.start(cacheDir, withPort(daemonSettings, port));
            daemon.set(restarted);
            daemonEpoch.incrementAndGet();
            sampler.watch(restarted.pid());
            client.close();
            client = client(port);
          }
          default -> throw new AssertionError(op);
        }
        ops.merge(op, 1, Integer::sum);
        maxReportedUsed = Math.max(maxReportedUsed, charged(client.usage()));
        long readsNow = totalReads(readers);
        int more = 2 + random.nextInt(8);
        awaitCondition(more + " more reads", () -> totalReads(readers) >= readsNow + more, readers.get(0));
      }
      assertThat(daemon.get().isAlive()).as("daemon alive at the end" + daemon.get().diagnostics()).isTrue();
      maxReportedUsed = Math.max(maxReportedUsed, charged(client.usage()));
      Map<String, Long> stats = client.daemonStats();
      for (Reader reader : readers) {
        reader.jvm.send("STOP");
      }
      for (Reader reader : readers) {
        awaitCondition("SUMMARY", () -> reader.summary.get() != null, reader);
        assertThat(reader.jvm.awaitExit(CHILD_TIMEOUT)).isZero();
      }
      sampling.shutdown();
      assertThat(sampling.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      sampler.sample();

      long metadataFallbacks = 0;
      long reads = 0;
      long bytes = 0;
      long wrongBytes = 0;
      long changed = 0;
      List<String> wrong = new ArrayList<>();
      List<String> stale = new ArrayList<>();
      List<String> failures = new ArrayList<>(driverFailures);
      for (Reader reader : readers) {
        reads += reader.reads.get();
        bytes += reader.bytes.get();
        wrongBytes += reader.wrongBytes.get();
        changed += reader.changed.get();
        wrong.addAll(reader.wrong);
        stale.addAll(reader.stale);
        failures.addAll(reader.failures);
        metadataFallbacks += summaryValue(reader.summary.get(), "FALLBACK_METADATA");
        System.out.println("ChaosTest reader " + reader.jvm.name() + ": " + reader.summary.get());
      }
      System.out.printf("ChaosTest summary: seed=%d wall=%ds ops=%s reads=%d bytesVerified=%d fillBytes=%d wrongBytes=%d wrongReads=%d "
              + "staleReads=%d changeDetectionFailures=%d failedReads=%d diskSamples=%d maxDataBytes=%d (at %dms) maxDataBytesDaemonUp=%d "
              + "maxMetaBytes=%d cap=%d maxReportedUsed=%d evictions=%s refusedCommitBlocks=%s recoveredBlocks=%s%n",
          seed, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), ops, reads, bytes, fillBytes, wrongBytes, wrong.size(),
          stale.size(), changed, failures.size(), sampler.samples, sampler.maxData, sampler.worstAtMillis - startMillis, maxDataDaemonUp.get(),
          sampler.maxMeta, CAP, maxReportedUsed, stats.get("rubix_cache_evictions"), stats.get("rubix_cache_refused_commit_blocks"),
          stats.get("rubix_cache_recovered_blocks"));
      if (overCap.get() != null) {
        System.out.println("ChaosTest over the cap: " + overCap.get());
      }
      String context = " (seed " + seed + ", operations: " + trail + ")" + (overCap.get() == null ? "" : "; first over the cap: " + overCap.get());
      assertThat(wrong).as("reads matching no version" + context).isEmpty();
      assertThat(wrongBytes).as("wrong bytes" + context).isZero();
      assertThat(stale).as("reads of a version not current between their open and end" + context).isEmpty();
      assertThat(failures).as("failed reads" + context).isEmpty();
      assertThat(samplingErrors).as("disk usage sampling errors").isEmpty();
      assertThat(reads).isPositive();
      if (ops.getOrDefault(Op.KILL_AND_RESTART, 0) > 0) {
        assertThat(metadataFallbacks).as("reads that went to the source while the daemon was down").isPositive();
      }
      assertThat(sampler.samples).isGreaterThan(10);
      assertThat(sampler.maxData).as("most bytes allocated to cache data files (%s, at %sms), cap %s%s", sampler.worst,
          sampler.worstAtMillis - startMillis, CAP, context).isLessThanOrEqualTo(CAP);
      assertThat(maxDataDaemonUp.get()).as("most bytes allocated to cache data files while a daemon ran, cap %s%s", CAP, context)
          .isLessThanOrEqualTo(CAP);
      assertThat(maxReportedUsed).as("used bytes reported by the daemon").isLessThanOrEqualTo(CAP);
    } finally {
      client.close();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private <T extends AutoCloseable> T track(T resource) {
    cleanup.add(resource);
    return resource;
  }

  /** The sample that went over the cap beside what the daemon charges for each file right after, and a second sample. */
  private String explainOverCap(DiskUsageSampler sampler, int port, long startMillis) {
    StringBuilder out = new StringBuilder("at ").append(System.currentTimeMillis() - startMillis).append("ms allocated ").append(sampler.lastData)
        .append(" [").append(sampler.lastDetail).append("]; daemon charges ");
    try (BookKeeperClient client = client(port)) {
      CacheUsage usage = client.usage();
      out.append(charged(usage)).append(" (reserved ").append(usage.disks().get(0).reservedBytes()).append(") [");
      for (CachedFile file : client.topFiles(1000)) {
        out.append(file.dataFile().substring(file.dataFile().lastIndexOf('/') + 1)).append('=').append(file.chargedBytes())
            .append(" cached ").append(file.cachedBlocks()).append('/').append(file.blocks()).append(' ');
      }
      out.append(']');
    } catch (IOException | RuntimeException e) {
      out.append("unknown (").append(e).append(')');
    }
    try {
      sampler.sample();
      out.append("; sampled again: ").append(sampler.lastData).append(" [").append(sampler.lastDetail).append(']');
    } catch (IOException e) {
      out.append("; no second sample: ").append(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out.toString();
  }

  /** What the daemon charges against the cap: used plus reserved (in-flight) bytes. */
  static long charged(CacheUsage usage) {
    return usage.disks().stream().mapToLong(disk -> disk.usedBytes() + disk.reservedBytes()).sum();
  }

  private static long summaryValue(String summary, String name) {
    for (String field : summary.split(" ")) {
      if (field.startsWith(name + "=")) {
        return Long.parseLong(field.substring(name.length() + 1));
      }
    }
    throw new AssertionError("No " + name + " in " + summary);
  }

  private static Duration parseDuration(String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    if (value.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
    }
    if (value.endsWith("m")) {
      return Duration.ofMinutes(Long.parseLong(value.substring(0, value.length() - 1)));
    }
    return Duration.ofSeconds(Long.parseLong(value.endsWith("s") ? value.substring(0, value.length() - 1) : value));
  }

  private static int otherLength(Random random, int current) {
    while (true) {
      int length = MIN_LENGTH + random.nextInt(MAX_LENGTH - MIN_LENGTH + 1);
      if (length != current) {
        return length;
      }
    }
  }

  private static Map<String, String> withPort(Map<String, String> settings, int port) {
    Map<String, String> all = new LinkedHashMap<>(settings);
    all.put("rubix.network.bookkeeper.server.port", Integer.toString(port));
    return all;
  }

  /** Writes version {@code window.version} of {@code key} with plain S3A (no cache invalidation) and sets its end. */
  private void put(String key, Window window) throws IOException {
    try (FSDataOutputStream out = plain.create(new org.apache.hadoop.fs.Path(BUCKET + key))) {
      out.write(ChaosContent.bytes(key, window.version, window.length));
    }
    window.putEnd = System.currentTimeMillis();
  }

  private ObjectVersion versionOf(String key) throws IOException {
    FileStatus status = plain.getFileStatus(new org.apache.hadoop.fs.Path(BUCKET + key));
    String etag = status instanceof EtagSource source && source.getEtag() != null ? source.getEtag() : "";
    return new ObjectVersion(status.getPath().toString(), status.getLen(), status.getModificationTime(), etag);
  }

  private static void announce(Reader reader, String key, Window window) {
    reader.jvm.send("VERSION " + key + " " + window.version + " " + window.length);
  }

  private void cli(int port, String... command) {
    List<String> args = new ArrayList<>(List.of(command));
    args.addAll(List.of("--port", Integer.toString(port), "-D", "rubix.cache.dirs=" + cacheDir));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = new RubixCli(name -> null).execute(args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
    assertThat(code).as("rubix %s: %s %s", args, out, err).isZero();
  }

  private Configuration clientConf(int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  private BookKeeperClient client(int port) {
    Configuration conf = BookKeeperTestSupport.clientConf(cacheDir, port);
    return BookKeeperTestSupport.client(conf, BLOCK);
  }

  private ChildJvm startReader(int port, long seed) throws IOException {
    Configuration conf = clientConf(port);
    List<String> args = new ArrayList<>();
    for (String key : List.of("fs.s3a.endpoint", "fs.s3a.endpoint.region", "fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.path.style.access",
        "fs.s3a.connection.ssl.enabled", "fs.s3a.aws.credentials.provider", "fs.s3a.change.detection.version.required",
        "fs.s3a.impl.disable.cache", "fs.s3a.attempts.maximum", "fs.s3a.retry.limit", "fs.s3a.impl", "rubix.cache.dirs",
        "rubix.cluster.embedded.mode", "rubix.network.bookkeeper.server.port", "rubix.network.client.read.timeout",
        "rubix.network.client.backoff.max", "rubix.cache.block.size")) {
      args.add("-D" + key + "=" + conf.get(key));
    }
    args.addAll(List.of("--seed", Long.toString(seed), "--threads", "2", "--min-length", Integer.toString(MIN_LENGTH), BUCKET));
    return ChildJvm.start("chaos-reader", ChaosReaderMain.class, List.of("-Xmx256m"), args);
  }

  private static long totalReads(List<Reader> readers) {
    return readers.stream().mapToLong(r -> r.reads.get()).sum();
  }

  /** Polls {@code condition} until it holds; fails after 90 s, or when {@code reader}'s output ended. */
  private static void awaitCondition(String what, BooleanSupplier condition, Reader reader) throws InterruptedException {
    long deadline = System.nanoTime() + CHILD_TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (reader.ended.get() != null && !condition.getAsBoolean()) {
        throw new AssertionError("Reader " + reader.jvm.name() + " ended while waiting for " + what, reader.ended.get());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what + reader.jvm.diagnostics());
      }
      // polling interval, not synchronization: the condition decides
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  /** One reader JVM and the thread that reads its report lines. */
  private final class Reader implements AutoCloseable {
    final ChildJvm jvm;
    final AtomicLong reads = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    final AtomicLong wrongBytes = new AtomicLong();
    final AtomicLong changed = new AtomicLong();
    final Set<String> acks = ConcurrentHashMap.newKeySet();
    final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    final AtomicReference<String> summary = new AtomicReference<>();
    final AtomicReference<Throwable> ended = new AtomicReference<>();
    private final Thread collector;

    Reader(ChildJvm jvm) {
      this.jvm = jvm;
      this.collector = new Thread(this::collect, "collect-" + jvm.name());
      collector.setDaemon(true);
    }

    void start() {
      collector.start();
    }

    private void collect() {
      StringBuilder failure = null;
      try {
        while (true) {
          String line = jvm.awaitLine(l -> true, Duration.ofMinutes(30));
          if (!line.startsWith("TRACE ") && failure != null) {
            failures.add(failure.toString());
            failure = null;
          }
          String[] fields = line.split(" ", 3);
          switch (fields[0]) {
            case "READ" -> {
              String[] read = line.split(" ");
              checkWindow(read[1], Integer.parseInt(read[2]), Long.parseLong(read[3]), Long.parseLong(read[4]), line);
              bytes.addAndGet(Long.parseLong(read[5]));
              reads.incrementAndGet();
            }
            case "WRONG" -> {
              wrong.add(line);
              wrongBytes.addAndGet(Long.parseLong(line.split(" ")[2]));
              reads.incrementAndGet();
            }
            case "CHANGED" -> {
              String[] read = line.split(" ");
              if (!overwrittenDuring(read[1], Long.parseLong(read[2]), Long.parseLong(read[3]))) {
                failures.add(jvm.name() + ": change detected with no overwrite of the object during the read: " + line);
              }
              changed.incrementAndGet();
              reads.incrementAndGet();
            }
            case "FAIL" -> {
              failure = new StringBuilder(jvm.name()).append(": ").append(line);
              reads.incrementAndGet();
            }
            case "TRACE" -> {
              if (failure != null) {
                failure.append('\n').append(line.substring(6));
              }
            }
            case "ACK" -> acks.add(fields[1] + " " + fields[2]);
            case "SUMMARY" -> {
              summary.set(line);
              return;
            }
            default -> {
              // other output of the reader JVM
            }
          }
        }
      } catch (AssertionError | InterruptedException | RuntimeException e) {
        ended.set(e);
      } finally {
        if (failure != null) {
          failures.add(failure.toString());
        }
      }
    }

    private void checkWindow(String key, int version, long open, long end, String line) {
      List<Window> versions = history.get(key);
      Window read;
      Window next;
      synchronized (versions) {
        read = versions.get(version);
        next = version + 1 < versions.size() ? versions.get(version + 1) : null;
      }
      long nextEnd = next == null || next.putEnd == 0 ? Long.MAX_VALUE : next.putEnd;
      if (end < read.putStart || open > nextEnd) {
        stale.add(jvm.name() + ": " + line + " (v" + version + " written from " + read.putStart + ", v" + (version + 1) + " in place at " + nextEnd + ")");
      }
    }

    /** Whether a version after the first of {@code key} was being written at some time in {@code [open, end]}. */
    private boolean overwrittenDuring(String key, long open, long end) {
      List<Window> versions = history.get(key);
      synchronized (versions) {
        return versions.stream().skip(1).anyMatch(w -> w.putStart <= end && (w.putEnd == 0 || w.putEnd >= open));
      }
    }

    @Override
    public void close() {
      jvm.close();
    }
  }
}
