package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.spi.metadata.CacheUsage;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage on the BookKeeper's Thrift port, from a seeded {@link Random}: random bytes, truncated and
 * oversized frames, well-framed garbage, calls with absurd container sizes, and connections left
 * half-open (some holding a partly sent large frame). After each batch a real client's health calls
 * must succeed and the daemon process must be alive.
 */
class ThriftFuzzTest {
  private static final long SEED = 20261122L;
  private static final int CONNECTIONS = 500;
  private static final int MAX_FRAME = 16 * 1024 * 1024;
  /** Connections the fuzzer keeps open while checking health; some declare frames of almost the maximum size. */
  private static final int HALF_OPEN_KEPT = 40;
  private static final List<String> METHODS = List.of("info", "status", "acquire", "commit", "abort", "awaitInFlight", "reportCorrupt",
      "invalidate", "invalidatePath", "immutableLength", "usage", "stats", "noSuchMethod", "");

  enum Case { RANDOM_BYTES, TRUNCATED_FRAME, OVERSIZED_FRAME, NEGATIVE_FRAME, GARBAGE_PAYLOAD, GARBAGE_ARGUMENTS, HUGE_CONTAINER, HUGE_STRING,
    HALF_OPEN, HALF_OPEN_LARGE_FRAME, HALF_CLOSED }

  @TempDir
  Path cacheDir;

  @Test
  void garbageOnTheThriftPortNeverStopsTheDaemon() throws Exception {
    Random random = new Random(SEED);
    Map<Case, Integer> sent = new EnumMap<>(Case.class);
    List<Socket> halfOpen = new ArrayList<>();
    try (BookKeeperProcess bookKeeper = BookKeeperProcess.start(cacheDir, Map.of());
        BookKeeperClient client = client(bookKeeper.port())) {
      healthy(bookKeeper, client);
      for (int i = 0; i < CONNECTIONS; i++) {
        Case kind = Case.values()[random.nextInt(Case.values().length)];
        if ((kind == Case.HALF_OPEN || kind == Case.HALF_OPEN_LARGE_FRAME) && halfOpen.size() >= HALF_OPEN_KEPT) {
          kind = Case.RANDOM_BYTES;
        }
        sent.merge(kind, 1, Integer::sum);
        // most connections pass the handshake, so the garbage reaches Thrift; the others send it in place of the handshake
        Socket socket;
        if (random.nextInt(4) != 0) {
          socket = AuthenticatedSockets.open(cacheDir, bookKeeper.port());
        } else {
          socket = new Socket();
          socket.connect(new InetSocketAddress("127.0.0.1", bookKeeper.port()), 5_000);
        }
        socket.setSoTimeout(2_000);
        socket.setSoLinger(true, 0);
        byte[] bytes = payload(kind, random);
        try {
          socket.getOutputStream().write(bytes);
          socket.getOutputStream().flush();
        } catch (IOException e) {
          // the server may close on the first bad bytes; that is fine
        }
        if (kind == Case.HALF_OPEN || kind == Case.HALF_OPEN_LARGE_FRAME) {
          halfOpen.add(socket);
          continue;
        }
        if (kind == Case.HALF_CLOSED || random.nextInt(8) == 0) {
          // wait for the server to answer or drop us, within the socket timeout
          socket.shutdownOutput();
          drain(socket.getInputStream());
        }
        socket.close();
        if (i % 100 == 99) {
          healthy(bookKeeper, client);
        }
      }
      // the half-open connections are still open here: the daemon must serve others regardless
      healthy(bookKeeper, client);
      for (Socket socket : halfOpen) {
        socket.close();
      }
      healthy(bookKeeper, client);
      System.out.println("fuzz cases sent: " + sent + ", half-open kept: " + halfOpen.size());
      assertThat(client.daemonStats()).containsKey("rubix_bookkeeper_status_calls");
      assertThat(bookKeeper.isAlive()).isTrue();
    } finally {
      for (Socket socket : halfOpen) {
        socket.close();
      }
    }
  }

  @Test
  void connectionsHoldingTheWholeReadBudgetWithUnfinishedFramesDoNotStallOthers() throws Exception {
    List<Socket> stalled = new ArrayList<>();
    try (BookKeeperProcess bookKeeper = BookKeeperProcess.start(cacheDir, Map.of("rubix.network.server.frame.timeout", "1s"));
        BookKeeperClient client = client(bookKeeper.port())) {
      healthy(bookKeeper, client);
      // the server allows 8 * max frame size of read buffers in total: 8 frames of the largest size, never finished
      for (int i = 0; i < 8; i++) {
        Socket socket = AuthenticatedSockets.open(cacheDir, bookKeeper.port());
        stalled.add(socket);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(MAX_FRAME - 4);
        out.write(new byte[16]);
        out.flush();
      }
      // each of them holds a 16 MiB reservation until the frame deadline closes it; then others are served again
      long start = System.nanoTime();
      long deadline = start + TimeUnit.SECONDS.toNanos(20);
      while (true) {
        // while the budget is held a new connection may be refused or dropped; it must be served once the frame deadline passes
        try (BookKeeperClient late = client(bookKeeper.port())) {
          healthy(bookKeeper, late);
          break;
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
      }
      System.out.printf("served again after %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      for (Socket socket : stalled) {
        assertThat(socket.getInputStream().read()).as("stalled connection closed by the server").isEqualTo(-1);
      }
    } finally {
      for (Socket socket : stalled) {
        socket.close();
      }
    }
  }

  private static void healthy(BookKeeperProcess bookKeeper, BookKeeperClient client) throws IOException {
    assertThat(bookKeeper.isAlive()).as("daemon alive%s", bookKeeper.diagnostics()).isTrue();
    assertThat(client.info().getBlockSize()).isEqualTo(1024 * 1024);
    CacheUsage usage = client.usage();
    assertThat(usage.disks()).hasSize(1);
  }

  private BookKeeperClient client(int port) {
    Configuration conf = BookKeeperTestSupport.clientConf(cacheDir, port);
    conf.set("rubix.network.client.read.timeout", "5s");
    conf.set("rubix.network.client.backoff.max", "0s");
    return BookKeeperTestSupport.client(conf, 1024 * 1024);
  }

  private static byte[] payload(Case kind, Random random) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buffer);
    switch (kind) {
      case RANDOM_BYTES -> out.write(randomBytes(random, 1 + random.nextInt(4096)));
      case TRUNCATED_FRAME -> {
        int length = 16 + random.nextInt(4096);
        out.writeInt(length);
        out.write(randomBytes(random, random.nextInt(length)));
      }
      case OVERSIZED_FRAME -> {
        out.writeInt(MAX_FRAME + 1 + random.nextInt(Integer.MAX_VALUE - MAX_FRAME - 1));
        out.write(randomBytes(random, random.nextInt(256)));
      }
      case NEGATIVE_FRAME -> {
        out.writeInt(random.nextBoolean() ? 0 : -1 - random.nextInt(Integer.MAX_VALUE));
        out.write(randomBytes(random, random.nextInt(64)));
      }
      case GARBAGE_PAYLOAD -> frame(out, randomBytes(random, 1 + random.nextInt(2048)));
      case GARBAGE_ARGUMENTS -> frame(out, call(METHODS.get(random.nextInt(METHODS.size())), randomBytes(random, random.nextInt(512))));
      case HUGE_CONTAINER -> {
        // commit(leaseId, blocks: list<i32> of ~2^31 elements) with a tiny frame
        ByteArrayOutputStream args = new ByteArrayOutputStream();
        DataOutputStream a = new DataOutputStream(args);
        a.writeByte(10);
        a.writeShort(1);
        a.writeLong(random.nextLong());
        a.writeByte(15);
        a.writeShort(2);
        a.writeByte(8);
        a.writeInt(Integer.MAX_VALUE - random.nextInt(1000));
        a.write(randomBytes(random, random.nextInt(64)));
        frame(out, call("commit", args.toByteArray()));
      }
      case HUGE_STRING -> {
        // invalidatePath(path: string of ~2^31 bytes) with a tiny frame
        ByteArrayOutputStream args = new ByteArrayOutputStream();
        DataOutputStream a = new DataOutputStream(args);
        a.writeByte(11);
        a.writeShort(1);
        a.writeInt(Integer.MAX_VALUE - random.nextInt(1000));
        a.write(randomBytes(random, random.nextInt(64)));
        frame(out, call("invalidatePath", args.toByteArray()));
      }
      case HALF_OPEN -> out.write(randomBytes(random, random.nextInt(4)));
      case HALF_OPEN_LARGE_FRAME -> {
        // a frame of almost the largest accepted size whose body never comes
        out.writeInt(MAX_FRAME - 4 - random.nextInt(1024));
        out.write(randomBytes(random, random.nextInt(1024)));
      }
      case HALF_CLOSED -> frame(out, call(METHODS.get(random.nextInt(METHODS.size())), new byte[0]));
    }
    return buffer.toByteArray();
  }

  private static byte[] call(String method, byte[] arguments) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buffer);
    byte[] name = method.getBytes(StandardCharsets.UTF_8);
    out.writeInt(0x80010000 | 1); // strict binary protocol, message type CALL
    out.writeInt(name.length);
    out.write(name);
    out.writeInt(1); // sequence id
    out.write(arguments);
    return buffer.toByteArray();
  }

  private static void frame(DataOutputStream out, byte[] body) throws IOException {
    out.writeInt(body.length);
    out.write(body);
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private static void drain(InputStream in) throws IOException {
    byte[] buffer = new byte[8192];
    try {
      while (in.read(buffer) >= 0) {
        // discard: an error answer or nothing
      }
    } catch (SocketTimeoutException | java.net.SocketException e) {
      // the server kept the connection open without answering, or reset it
    }
  }
}
