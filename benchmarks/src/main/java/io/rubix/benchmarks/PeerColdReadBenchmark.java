package io.rubix.benchmarks;

import io.rubix.bookkeeper.BookKeeper;
import io.rubix.bookkeeper.BookKeeperConfig;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.testing.S3Server;
import io.rubix.testing.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A cold read of a split another node owns: the first sequential read of a {@value #OBJECT_MIB} MiB
 * object (one split, owned by node 2) by a reader on node 1, through node 2's BookKeeper, which
 * fetches the blocks from S3 for it ({@code owner}, {@code owner-secret} with
 * {@code rubix.network.transfer.secret} set on both nodes and the reader, {@code owner-tls} with
 * {@code rubix.network.transfer.tls.*} on both nodes and the reader: certificates made with keytool at
 * setup, client certificates required), against a direct read of
 * the same bytes with S3A's {@code classic} stream ({@code s3a-classic}).
 *
 * <p>Two BookKeepers run in this JVM, on 127.0.0.1 and 127.0.0.2 (one transfer port, Linux routes
 * 127.0.0.0/8 to loopback), with default settings (1 MiB blocks, 4 fetch threads per owner); the S3
 * server is S3Proxy in memory with {@code -Drubix.bench.latency.ms} (default 30) ms before the first
 * byte of every GET and {@code -Drubix.bench.bandwidth.mbps} (default 100) MB/s per GET. Every
 * invocation writes a new object (not timed), so neither node has cached any of it: the owner's
 * fetch is part of every measured read. The timed part is open + {@code read(byte[])} loop of
 * {@code bufferSize} to end of file + close. After each trial the GETs per read the S3 server saw
 * and the owner's peer-fill and transfer counters are printed.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3)
@Measurement(iterations = 9)
public class PeerColdReadBenchmark {
  static final int OBJECT_MIB = 32;
  private static final String BUCKET = "bench";
  private static final String SECRET = "peer-bench-secret";
  private static final long SPLIT = 256L << 20;

  @Param({"owner", "owner-secret", "owner-tls", "s3a-classic"})
  public String reader;

  @Param({"65536"})
  public int bufferSize;

  private S3Server server;
  private Path dir;
  private final BookKeeper[] nodes = new BookKeeper[3];
  private int transferPort;
  private byte[] buffer;
  private int invocation;
  private org.apache.hadoop.fs.Path object;
  private FileSystem fs;
  private long gets;
  private long bytes;
  private long invocations;
  /** The rubix.network.transfer.tls.* settings of nodes and reader with {@code owner-tls}, else none. */
  private final Map<String, String> tls = new LinkedHashMap<>();

  @Setup(Level.Trial)
  public void start() throws Exception {
    dir = BenchFiles.newScratchDir("rubix-peer-cold-");
    server = S3Server.inMemory();
    server.createBucket(BUCKET);
    if (reader.equals("owner-tls")) {
      TestCertificates stores = new TestCertificates(Files.createDirectories(dir.resolve("tls")));
      TestCertificates.Authority authority = stores.authority("bench-ca");
      tls.put("rubix.network.transfer.tls.enabled", "true");
      tls.put("rubix.network.transfer.tls.keystore.path", authority.keyStore("node", "ip:127.0.0.1,ip:127.0.0.2").toString());
      tls.put("rubix.network.transfer.tls.keystore.password", TestCertificates.PASSWORD);
      tls.put("rubix.network.transfer.tls.truststore.path", authority.trustStore().toString());
      tls.put("rubix.network.transfer.tls.truststore.password", TestCertificates.PASSWORD);
      tls.put("rubix.network.transfer.tls.client.auth", "required");
    }
    for (int node = 1; node <= 2; node++) {
      nodes[node] = BookKeeper.start(BookKeeperConfig.from(daemonConf(node)));
      if (node == 1) {
        transferPort = nodes[1].transferPort();
      }
    }
    server.store().setFirstByteLatency(Duration.ofMillis(Long.getLong("rubix.bench.latency.ms", 30)));
    server.store().setBandwidth(Long.getLong("rubix.bench.bandwidth.mbps", 100) * 1_000_000);
    buffer = new byte[bufferSize];
  }

  private Configuration daemonConf(int node) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", Files.createDirectories(dir.resolve("node" + node)).toString());
    conf.set("rubix.cluster.node.id", "node" + node);
    conf.set("rubix.network.bookkeeper.bind.address", host(node));
    conf.set("rubix.network.bookkeeper.server.port", "0");
    conf.set("rubix.bookkeeper.metrics.port", "0");
    conf.set("rubix.network.transfer.bind.address", host(node));
    conf.set("rubix.network.transfer.server.port", Integer.toString(transferPort));
    conf.set("rubix.network.transfer.fetch.allowed.authorities", "s3a://" + BUCKET);
    server.s3aConfiguration().getPropsWithPrefix("fs.s3a.").forEach((key, value) -> conf.set("fs.s3a." + key, value));
    if (reader.equals("owner-secret")) {
      conf.set("rubix.network.transfer.secret", SECRET);
    }
    tls.forEach(conf::set);
    BookKeeperBench.applySystemProperties(conf);
    return conf;
  }

  private static String host(int node) {
    return "127.0.0." + node;
  }

  /** The configuration of a reader on node 1. */
  private Configuration readerConf() {
    Configuration conf = baseConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", dir.resolve("node1").toString());
    conf.set("rubix.cluster.embedded.mode", "false");
    conf.set("rubix.network.bookkeeper.host", host(1));
    conf.set("rubix.network.bookkeeper.server.port", Integer.toString(nodes[1].port()));
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", "node1=" + host(1) + ":" + nodes[1].port() + ",node2=" + host(2) + ":" + nodes[2].port());
    conf.set("rubix.cluster.node.id", "node1");
    conf.set("rubix.network.transfer.server.port", Integer.toString(transferPort));
    conf.set("rubix.cache.filesplit.size", Long.toString(SPLIT));
    if (reader.equals("owner-secret")) {
      conf.set("rubix.network.transfer.secret", SECRET);
    }
    tls.forEach(conf::set);
    BookKeeperBench.applySystemProperties(conf);
    return conf;
  }

  @Setup(Level.Invocation)
  public void writeObjectAndOpenFileSystem() throws IOException {
    Configuration conf = reader.startsWith("owner") ? readerConf() : baseConfiguration();
    object = ownedByNode2(conf);
    Configuration writerConf = baseConfiguration();
    try (FileSystem writer = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), writerConf);
        FSDataOutputStream out = writer.create(object)) {
      for (long at = 0; at < (long) OBJECT_MIB << 20; at += 1 << 20) {
        out.write(BenchFiles.randomBytes(1 << 20, at + invocation));
      }
    }
    if (!reader.startsWith("owner")) {
      conf.set("fs.s3a.input.stream.type", "classic");
    }
    fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
    server.store().reset();
  }

  /** A new object path whose one split node 2 owns. */
  private org.apache.hadoop.fs.Path ownedByNode2(Configuration conf) {
    Configuration ring = readerConf();
    ClusterLocality locality = ClusterSetup.locality(ring);
    try {
      while (true) {
        String path = "s3a://" + BUCKET + "/data/object-" + invocation++ + ".bin";
        ClusterNode owner = locality.ownerOf(path, 0).orElseThrow();
        if (owner.id().equals("node2")) {
          return new org.apache.hadoop.fs.Path(path);
        }
      }
    } finally {
      locality.close();
    }
  }

  @Benchmark
  public long coldReadOfASplitAnotherNodeOwns() throws IOException {
    long total = 0;
    try (FSDataInputStream in = fs.open(object)) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        total += n;
      }
    }
    if (total != (long) OBJECT_MIB << 20) {
      throw new IOException("Read " + total + " bytes of " + object + ", expected " + ((long) OBJECT_MIB << 20));
    }
    return total;
  }

  @TearDown(Level.Invocation)
  public void closeFileSystem() throws IOException {
    gets += server.store().gets();
    bytes += server.store().bytesServed();
    invocations++;
    fs.close();
  }

  @TearDown(Level.Trial)
  public void stop() {
    System.out.printf(Locale.ROOT, "%n%s: %.1f GETs and %.1f MiB from S3 per cold read (%d reads)%n", reader, (double) gets / invocations,
        (double) bytes / invocations / (1 << 20), invocations);
    if (nodes[2] != null) {
      System.out.println("owner (node 2) counters: " + ownerCounters());
    }
    for (int node = 2; node >= 1; node--) {
      if (nodes[node] != null) {
        nodes[node].close();
      }
    }
    server.close();
    BenchFiles.deleteRecursively(dir);
  }

  /** Node 2's peer-fill and transfer counters, from its metrics endpoint. */
  private String ownerCounters() {
    try {
      HttpResponse<String> metrics = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nodes[2].metricsPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      return metrics.body().lines().filter(line -> line.startsWith("rubix_peer_fill") || line.startsWith("rubix_transfer"))
          .collect(Collectors.joining(", "));
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e.toString();
    }
  }

  private Configuration baseConfiguration() {
    Configuration conf = server.s3aConfiguration();
    conf.set("hadoop.tmp.dir", dir.resolve("hadoop-tmp").toString());
    conf.set("fs.s3a.buffer.dir", dir.resolve("s3a-buffer").toString());
    return conf;
  }
}
