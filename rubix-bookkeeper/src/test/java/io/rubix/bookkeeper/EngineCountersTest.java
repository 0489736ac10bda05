package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.bookkeeper.server.BookKeeperHandler;
import io.rubix.bookkeeper.server.EngineCounters;
import io.rubix.bookkeeper.server.FrameDeadlineServerSocket;
import io.rubix.bookkeeper.server.ServerCounters;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.BookKeeperSecret;
import io.rubix.core.client.CounterReporter;
import io.rubix.core.client.UnknownCallException;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.hadoop.HasCacheEngine;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolDecorator;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reading JVMs' counters at the daemon: a caching S3A file system in daemon mode reports what it
 * counted (the last report when it closes), and the daemon's totals, /metrics and {@code rubix
 * status} show the node's hit ratio. A hostile report is refused whole, and a daemon that predates
 * the call makes the reports stop without sending reads to the source.
 */
class EngineCountersTest {
  private static final int BLOCK = 64 * 1024;
  private static final int SIZE = 5 * BLOCK + 123;
  private static S3Server s3;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("counted");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://counted/"), s3.s3aConfiguration());
        FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("s3a://counted/t/part-0.orc"))) {
      out.write(content());
    }
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  @Test
  void theDaemonSumsWhatItsReadersCountedAndShowsTheNodesHitRatio() throws Exception {
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf()))) {
      Configuration conf = s3.s3aConfiguration();
      conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
      conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
      BookKeeperTestSupport.useDaemon(conf, cacheDir, bookKeeper.port());
      conf.set(BookKeeperKeys.COUNTERS_INTERVAL.name(), "1h"); // only the report at close: the totals are exact
      Map<String, Long> counted;
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://counted/"), conf)) {
        for (int pass = 0; pass < 3; pass++) {
          byte[] bytes = new byte[SIZE];
          try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://counted/t/part-0.orc"))) {
            in.readFully(0, bytes);
          }
          assertThat(bytes).isEqualTo(content());
        }
        counted = ((HasCacheEngine) fs).cacheEngine().stats().snapshot();
        assertThat(bookKeeper.stats()).as("before the file system closes").containsEntry("rubix_engines_reports", 0L);
      }

      Map<String, Long> stats = bookKeeper.stats();
      assertThat(stats).containsEntry("rubix_engines_reports", 1L)
          .containsEntry("rubix_engines_cache_hit_bytes", counted.get("rubix_cache_hit_bytes"))
          .containsEntry("rubix_engines_cache_miss_bytes", counted.get("rubix_cache_miss_bytes"))
          .containsEntry("rubix_engines_source_bytes", counted.get("rubix_source_bytes"));
      assertThat(counted.get("rubix_cache_hit_bytes")).as("two warm passes").isEqualTo(2L * SIZE);
    }
  }

  @Test
  void aReportWithAnUnknownNameOrABadValueIsRefusedWhole() throws Exception {
    try (BookKeeper bookKeeper = BookKeeper.start(BookKeeperConfig.from(daemonConf()));
        BookKeeperClient client = BookKeeperTestSupport.client(clientConf(bookKeeper.port()), BLOCK)) {
      List<Map<String, Long>> hostile = List.of(
          ordered("rubix_cache_hit_bytes", 5L, "rubix_cache_used_bytes", 1L),
          ordered("rubix_cache_hit_bytes", 5L, "rubix_cache_miss_bytes", -1L),
          ordered("rubix_cache_hit_bytes", 5L, "rubix_cache_miss_bytes", 1L << 48),
          tooMany());
      for (Map<String, Long> report : hostile) {
        assertThatThrownBy(() -> client.reportCounters(report)).as("%s", report).isInstanceOf(IOException.class)
            .hasMessageContaining("Bad reportCounters request");
      }

      assertThat(bookKeeper.stats()).containsEntry("rubix_engines_cache_hit_bytes", 0L).containsEntry("rubix_engines_reports", 0L)
          .containsEntry("rubix_bookkeeper_bad_requests", (long) hostile.size());
      client.reportCounters(Map.of("rubix_cache_hit_bytes", 7L));
      assertThat(bookKeeper.stats()).containsEntry("rubix_engines_cache_hit_bytes", 7L);
      assertThat(client.failures()).isZero();
    }
  }

  @Test
  void aDaemonThatPredatesTheCallStopsTheReportsButNotTheCache() throws Exception {
    Path root = Files.createDirectories(cacheDir.resolve(BookKeeper.ROOT));
    SecureRandom random = new SecureRandom();
    ConnectionAuth auth = new ConnectionAuth(BookKeeperSecret.readOrCreate(root.resolve("secret"), random), random);
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(1 << 20, List.of(root), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(10)).build())) {
      ServerCounters counters = new ServerCounters();
      BookKeeperHandler handler = new BookKeeperHandler(service, new TServiceInfo(ThriftCodec.PROTOCOL_VERSION, 1 << 20, "old", 0), counters,
          Map::of, new EngineCounters());
      FrameDeadlineServerSocket socket = new FrameDeadlineServerSocket(new InetSocketAddress("127.0.0.1", 0), 1 << 20, Duration.ofSeconds(5),
          auth, counters);
      TThreadedSelectorServer server = new TThreadedSelectorServer(new TThreadedSelectorServer.Args(socket)
          .processor(withoutReportCounters(handler)).protocolFactory(new TBinaryProtocol.Factory())
          .transportFactory(new TFramedTransport.Factory(1 << 20)));
      Thread serving = new Thread(server::serve, "old-bookkeeper");
      serving.start();
      try (BookKeeperClient client = BookKeeperTestSupport.client(BookKeeperTestSupport.clientConf(cacheDir, socket.getPort()), 1 << 20)) {
        assertThatThrownBy(() -> client.reportCounters(Map.of("rubix_cache_hit_bytes", 1L))).isInstanceOf(UnknownCallException.class);
        assertThat(client.usage().disks()).as("the next call, on the same connection").hasSize(1);
        assertThat(client.failures()).as("no backoff: reads keep using the cache").isZero();

        CacheStats stats = new CacheStats();
        stats.add(CacheCounter.HIT_BYTES, 5);
        try (CounterReporter reporter = CounterReporter.start(stats, client, Duration.ofHours(1), "old")) {
          reporter.report();
          reporter.report();
        }
        assertThat(client.failures()).isZero();
      } finally {
        server.stop();
        serving.join();
        socket.close();
      }
    }
  }

  /** The daemon's processor as a BookKeeper before {@code reportCounters} had it: the call's name is one it does not know. */
  private static TProcessor withoutReportCounters(BookKeeperService.Iface handler) {
    TProcessor current = new BookKeeperService.Processor<>(handler);
    return (in, out) -> current.process(new TProtocolDecorator(in) {
      @Override
      public TMessage readMessageBegin() throws TException {
        TMessage message = super.readMessageBegin();
        return message.name.equals("reportCounters") ? new TMessage("reportCounters, unknown here", message.type, message.seqid) : message;
      }
    }, out);
  }

  private Configuration clientConf(int port) {
    Configuration conf = BookKeeperTestSupport.clientConf(cacheDir, port);
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    return conf;
  }

  private Configuration daemonConf() {
    Configuration conf = BookKeeperTestSupport.daemonConf(cacheDir);
    conf.set(CacheKeys.BLOCK_SIZE.name(), "64k");
    return conf;
  }

  private static Map<String, Long> ordered(String first, long firstValue, String second, long secondValue) {
    Map<String, Long> report = new LinkedHashMap<>();
    report.put(first, firstValue);
    report.put(second, secondValue);
    return report;
  }

  private static Map<String, Long> tooMany() {
    Map<String, Long> report = new LinkedHashMap<>();
    for (CacheCounter counter : CacheCounter.values()) {
      report.put(counter.statisticName(), 1L);
    }
    report.put("rubix_cache_hit_bytes ", 1L);
    return report;
  }

  private static byte[] content() {
    byte[] data = new byte[SIZE];
    new Random(SIZE).nextBytes(data);
    return data;
  }
}
