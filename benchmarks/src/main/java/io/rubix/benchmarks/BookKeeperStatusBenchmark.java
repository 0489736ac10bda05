package io.rubix.benchmarks;

import io.rubix.bookkeeper.BookKeeper;
import io.rubix.bookkeeper.BookKeeperConfig;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The BookKeeper's status RPC over loopback: {@link BookKeeperClient#status} of a
 * {@value #RANGE_BLOCKS}-block range, all cached, of a {@value #OBJECT_BLOCKS}-block object, answered
 * by a {@link BookKeeper} started in this JVM ({@link BookKeeper#start}, 127.0.0.1, port 0, default
 * server settings: 2 selector threads, {@code rubix.network.server.worker.threads} workers) through
 * the client's connection pool (default size 16, so every client thread keeps its own connection).
 *
 * <p>{@code throughput<n>Thread(s)} (ops/s, all threads together) and {@code latency<n>Thread(s)}
 * (sampled per call: p50/p99) with 1, 4 and 16 client threads. {@code *InProcess}: the same question
 * asked of the daemon's {@link InProcessMetadataService} directly, i.e. what the RPC adds to.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class BookKeeperStatusBenchmark {
  static final int OBJECT_BLOCKS = 64;
  static final int RANGE_BLOCKS = 16;

  private Path dir;
  private BookKeeper bookKeeper;
  private BookKeeperClient client;
  private ObjectVersion version;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = BenchFiles.newScratchDir("rubix-bk-status-");
    Configuration daemon = new Configuration(false);
    daemon.set("rubix.cache.dirs", dir.resolve("cache").toString());
    daemon.set("rubix.network.bookkeeper.bind.address", "127.0.0.1");
    daemon.set("rubix.network.bookkeeper.server.port", "0");
    daemon.set("rubix.bookkeeper.metrics.port", "-1");
    daemon.set("rubix.network.transfer.server.port", "-1");
    daemon.set("rubix.cluster.node.id", "bench");
    BookKeeperBench.applySystemProperties(daemon);
    bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemon));
    int blockSize = bookKeeper.config().cache().blockSize();
    version = new ObjectVersion("s3a://bench/warehouse/t/part-00000.orc", (long) OBJECT_BLOCKS * blockSize, 1_700_000_000_000L, "etag-0");
    BookKeeperBench.publish(bookKeeper.service(), version, 0, RANGE_BLOCKS);

    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", dir.resolve("cache").toString());
    conf.set("rubix.cluster.embedded.mode", "false");
    conf.set("rubix.network.bookkeeper.host", "127.0.0.1");
    conf.set("rubix.network.bookkeeper.server.port", Integer.toString(bookKeeper.port()));
    BookKeeperBench.applySystemProperties(conf);
    client = new BookKeeperClient(ClientConfig.from(conf), blockSize, System::nanoTime);
    BlockRange range = client.status(version, 0, RANGE_BLOCKS);
    if (!range.allCached(0, RANGE_BLOCKS)) {
      throw new IllegalStateException("Blocks [0, " + RANGE_BLOCKS + ") of " + version + " are not cached: " + range);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    System.out.printf(Locale.ROOT, "%nclient transport failures: %d%n", client.failures());
    client.close();
    bookKeeper.close();
    BenchFiles.deleteRecursively(dir);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(1)
  public BlockRange throughput1Thread() throws IOException {
    return client.status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Threads(1)
  public BlockRange latency1Thread() throws IOException {
    return client.status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(4)
  public BlockRange throughput4Threads() throws IOException {
    return client.status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Threads(4)
  public BlockRange latency4Threads() throws IOException {
    return client.status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(16)
  public BlockRange throughput16Threads() throws IOException {
    return client.status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Threads(16)
  public BlockRange latency16Threads() throws IOException {
    return client.status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(1)
  public BlockRange throughputInProcess() {
    return bookKeeper.service().status(version, 0, RANGE_BLOCKS);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Threads(1)
  public BlockRange latencyInProcess() {
    return bookKeeper.service().status(version, 0, RANGE_BLOCKS);
  }
}
