package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.bookkeeper.server.FrameDeadlineServerSocket;
import io.rubix.bookkeeper.server.ServerCounters;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.BookKeeperSecret;
import io.rubix.core.client.ClientConfig;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.DataFileLayout;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TBlockRange;
import io.rubix.spi.thrift.TCacheUsage;
import io.rubix.spi.thrift.TObjectVersion;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import io.rubix.testing.S3Server;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9's attacks, tried from outside: a hostile local process on a daemon's Thrift port (without
 * the BookKeeper secret, and as a member of the cache group that holds it), and a fake daemon on a
 * reading JVM's BookKeeper port. The engine's reads must return the source's bytes, write nothing
 * outside its cache directories, and the daemon must stay up and within its bounds.
 */
class AttackTest {
  private static final int MIB = 1024 * 1024;
  private static S3Server s3;

  @TempDir
  Path work;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3Server.inMemory();
    s3.createBucket("bucket");
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  /**
   * The scenario: commit blocks 0-3 of a 4 MiB + 17 B object with the CRC32C of their bytes,
   * without writing them. (A claim of the CRC32C of zeros is published: the holes match it, as written
   * zeros would; a member that can write the file can make any claim true, see docs/operations.md.)
   */
  @Test
  void aCommitOfBlocksNeverWrittenNeverReachesAReader() throws Exception {
    Path cacheDir = Files.createDirectories(work.resolve("cache"));
    byte[] data = put("victim.bin", 4 * MIB + 17);
    try (BookKeeperProcess daemon = BookKeeperProcess.start(cacheDir, Map.of())) {
      Configuration conf = clientConf(cacheDir, daemon.port());
      // a normal reader caches the last block
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf); FSDataInputStream in = fs.open(path("victim.bin"))) {
        byte[] tail = new byte[17];
        in.readFully(4L * MIB, tail);
      }

      // without the secret: the connection is closed before any call
      Path otherSecret = work.resolve("other-secret");
      BookKeeperSecret.readOrCreate(otherSecret, new SecureRandom());
      try (BookKeeperClient outsider = client(cacheDir, daemon.port(), otherSecret)) {
        assertThatThrownBy(() -> outsider.topFiles(10)).isInstanceOf(IOException.class);
      }
      try (Socket raw = new Socket()) {
        raw.connect(new InetSocketAddress("127.0.0.1", daemon.port()), 5_000);
        raw.setSoTimeout(5_000);
        DataOutputStream out = new DataOutputStream(raw.getOutputStream());
        out.write(thriftFrame());
        out.flush();
        // the server sent its challenge, then closes on the frame it cannot take for an answer
        assertThat(raw.getInputStream().readAllBytes()).hasSize(ConnectionAuth.CHALLENGE_BYTES);
      }

      // a member of the cache group (holds the secret): the commit is checked against the bytes on disk
      try (BookKeeperClient member = client(cacheDir, daemon.port(), null)) {
        CachedFile cached = member.topFiles(10).get(0);
        ObjectVersion version = cached.version();
        BlockRange lease = member.acquire(version, 0, 4);
        int[] blocks = {0, 1, 2, 3};
        for (int block : blocks) {
          assertThat(lease.state(block)).isEqualTo(BlockState.GRANTED);
        }
        int[] claimed = new int[blocks.length];
        for (int block : blocks) {
          claimed[block] = crc(Arrays.copyOfRange(data, block * MIB, (block + 1) * MIB));
        }
        assertThat(member.commit(lease.leaseId(), blocks, claimed)).as("blocks published").isZero();
        assertThat(member.daemonStats()).containsEntry("rubix_cache_refused_commit_blocks", 4L)
            .containsEntry("rubix_bookkeeper_unauthenticated_connections", 2L);

        // made-up huge ranges and thousands of versions: refused or bounded, and the daemon stays up
        ObjectVersion huge = new ObjectVersion("s3a://bucket/huge", 1L << 50, 1, "x");
        assertThatThrownBy(() -> member.acquire(huge, 0, Integer.MAX_VALUE)).isInstanceOf(IOException.class).hasMessageContaining("4096");
        assertThatThrownBy(() -> member.status(huge, 0, Integer.MAX_VALUE)).isInstanceOf(IOException.class);
        for (int i = 0; i < 2_000; i++) {
          member.acquire(new ObjectVersion("s3a://bucket/invented-" + i, 1, i, ""), 0, 1);
        }
        io.rubix.spi.metadata.CacheUsage.Disk disk = member.usage().disks().get(0);
        assertThat(disk.usedBytes() + disk.reservedBytes()).isLessThanOrEqualTo(disk.capacityBytes());
      }
      assertThat(daemon.isAlive()).isTrue();

      // a new reader gets the object's bytes, never the holes
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf); FSDataInputStream in = fs.open(path("victim.bin"))) {
        byte[] read = new byte[data.length];
        in.readFully(0, read);
        assertThat(read).isEqualTo(data);
      }
    }
  }

  /** A process answering on the reader's BookKeeper port, with or without the secret, never makes the reader write outside its cache. */
  @Test
  void aFakeDaemonCannotMakeAReaderWriteOutsideItsCache() throws Exception {
    Path cacheDir = Files.createDirectories(work.resolve("cache"));
    byte[] data = put("fake.bin", 2 * MIB + 5);
    Path secretFile = DataFileLayout.daemonRoots(List.of(cacheDir)).get(0).resolve("secret");
    byte[] secret = BookKeeperSecret.readOrCreate(secretFile, new SecureRandom());
    ObjectVersion version = versionOf("fake.bin");
    // the victim: the version's true data-file name and live length (so only the path check stands in the way),
    // under a directory that is not a cache root
    Path elsewhere = Files.createDirectories(work.resolve("home"));
    Path victim = new DataFileLayout(List.of(elsewhere)).dataFile(version, 0, 1);
    Files.createDirectories(victim.getParent());
    byte[] precious = new byte[(int) DataFileLayout.liveLength(version)];
    java.util.Arrays.fill(precious, (byte) 'p');
    Files.write(victim, precious);

    byte[] wrongSecret = new byte[32];
    new SecureRandom().nextBytes(wrongSecret);
    for (byte[] fakeSecret : List.of(wrongSecret, secret)) {
      try (FakeDaemon fake = new FakeDaemon(fakeSecret, victim.toString())) {
        Configuration conf = clientConf(cacheDir, fake.port());
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf); FSDataInputStream in = fs.open(path("fake.bin"))) {
          byte[] read = new byte[data.length];
          in.readFully(0, read);
          assertThat(read).isEqualTo(data);
        }
        assertThat(fake.answered).as("the reader asked the fake daemon (holding the secret: %s)", fakeSecret == secret)
            .isEqualTo(fakeSecret == secret);
      }
      assertThat(java.util.Arrays.equals(Files.readAllBytes(victim), precious)).as("%s unchanged", victim).isTrue();
      try (Stream<Path> files = Files.walk(elsewhere)) {
        assertThat(files.filter(Files::isRegularFile).toList()).containsExactly(victim);
      }
    }
  }

  /** A BookKeeper impostor: answers every lookup with a data file of its choosing, granted or cached. */
  private static final class FakeDaemon implements AutoCloseable {
    private final FrameDeadlineServerSocket socket;
    private final TThreadedSelectorServer server;
    private final Thread thread;
    volatile boolean answered;

    FakeDaemon(byte[] secret, String dataFile) throws Exception {
      BookKeeperService.Iface handler = (BookKeeperService.Iface) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {BookKeeperService.Iface.class}, (proxy, method, args) -> switch (method.getName()) {
            case "info" -> new TServiceInfo(ThriftCodec.PROTOCOL_VERSION, MIB, "fake", 0);
            case "status", "acquire", "awaitInFlight" -> {
              answered = true;
              TObjectVersion v = (TObjectVersion) args[0];
              int first = (Integer) args[1];
              int end = (Integer) args[2];
              byte[] states = new byte[end - first];
              java.util.Arrays.fill(states, (method.getName().equals("acquire") ? BlockState.GRANTED : BlockState.CACHED).code());
              yield new TBlockRange(dataFile, first, ByteBuffer.wrap(states), ByteBuffer.allocate(4 * states.length), 42L);
            }
            case "commit", "invalidatePath", "clear" -> 0;
            case "usage" -> new TCacheUsage(List.of(), 0);
            case "stats" -> Map.of();
            case "topFiles" -> List.of();
            default -> null;
          });
      socket = new FrameDeadlineServerSocket(new InetSocketAddress("127.0.0.1", 0), 16 * MIB, Duration.ofSeconds(10),
          new ConnectionAuth(secret, new SecureRandom()), new ServerCounters());
      TThreadedSelectorServer.Args args = new TThreadedSelectorServer.Args(socket)
          .processor(new BookKeeperService.Processor<>(handler))
          .protocolFactory(new TBinaryProtocol.Factory())
          .transportFactory(new TFramedTransport.Factory(16 * MIB));
      server = new TThreadedSelectorServer(args);
      thread = new Thread(server::serve, "fake-bookkeeper");
      thread.setDaemon(true);
      thread.start();
      while (!server.isServing()) {
        Thread.onSpinWait();
      }
    }

    int port() {
      return socket.getPort();
    }

    @Override
    public void close() {
      server.stop();
      socket.close();
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static byte[] thriftFrame() throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    DataOutputStream body = new DataOutputStream(bytes);
    body.writeInt(0x80010001); // strict binary protocol, CALL
    body.writeInt(6);
    body.writeBytes("commit");
    body.writeInt(1);
    body.write(new byte[64]);
    byte[] frame = bytes.toByteArray();
    return ByteBuffer.allocate(4 + frame.length).putInt(frame.length).put(frame).array();
  }

  private static int crc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (int) crc.getValue();
  }

  private static org.apache.hadoop.fs.Path path(String key) {
    return new org.apache.hadoop.fs.Path("s3a://bucket/" + key);
  }

  private static byte[] put(String key, int size) throws IOException {
    byte[] data = new byte[size];
    new Random(key.hashCode()).nextBytes(data);
    try (FileSystem plain = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration());
        FSDataOutputStream out = plain.create(path(key))) {
      out.write(data);
    }
    return data;
  }

  private static ObjectVersion versionOf(String key) throws IOException {
    try (FileSystem plain = FileSystem.newInstance(URI.create("s3a://bucket/"), s3.s3aConfiguration())) {
      org.apache.hadoop.fs.FileStatus status = plain.getFileStatus(path(key));
      String etag = status instanceof org.apache.hadoop.fs.EtagSource source && source.getEtag() != null ? source.getEtag() : "";
      return new ObjectVersion(status.getPath().toString(), status.getLen(), status.getModificationTime(), etag);
    }
  }

  private static Configuration clientConf(Path cacheDir, int port) {
    Configuration conf = s3.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.jmx.enabled", "false");
    // a read caches exactly the blocks it touches: no tail or whole-object extent
    conf.set("rubix.cache.fetch.tail.size", "0");
    conf.set("rubix.cache.fetch.whole.max", "0");
    return BookKeeperTestSupport.useDaemon(conf, cacheDir, port);
  }

  private static BookKeeperClient client(Path cacheDir, int port, Path secretFile) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cluster.embedded.mode", "false");
    conf.set("rubix.network.bookkeeper.server.port", Integer.toString(port));
    conf.set("rubix.network.client.backoff.max", "0s");
    if (secretFile != null) {
      conf.set("rubix.bookkeeper.secret.file", secretFile.toString());
    }
    return new BookKeeperClient(ClientConfig.from(conf), MIB, System::nanoTime);
  }
}
