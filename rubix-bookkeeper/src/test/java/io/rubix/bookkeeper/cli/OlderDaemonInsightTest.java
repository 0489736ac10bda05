package io.rubix.bookkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.bookkeeper.BookKeeperTestSupport;
import io.rubix.bookkeeper.server.BookKeeperHandler;
import io.rubix.bookkeeper.server.EngineCounters;
import io.rubix.bookkeeper.server.FrameDeadlineServerSocket;
import io.rubix.bookkeeper.server.ServerCounters;
import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.BookKeeperSecret;
import io.rubix.core.client.UnknownCallException;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.spi.thrift.BookKeeperService;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ConnectionAuth;
import io.rubix.spi.wire.ThriftCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.thrift.ProcessFunction;
import org.apache.thrift.TBase;
import org.apache.thrift.TBaseProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadedSelectorServer;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code insight} was added to protocol 1 as a new call: a daemon that predates it answers
 * UNKNOWN_METHOD, which the client reports as unsupported without backing off, and the CLI prints
 * everything else.
 */
class OlderDaemonInsightTest {
  private static final int BLOCK = 1024 * 1024;

  @TempDir
  Path cacheDir;

  @Test
  void aDaemonWithoutTheCallStillServesStatusAndStats() throws Exception {
    byte[] secret = BookKeeperSecret.readOrCreate(cacheDir.resolve("bookkeeper").resolve("secret"), new SecureRandom());
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(cacheDir.resolve("bookkeeper")), List.of(1L << 30))
        .leaseTimeout(Duration.ofSeconds(60)).build())) {
      BookKeeperHandler handler = new BookKeeperHandler(service, new TServiceInfo(ThriftCodec.PROTOCOL_VERSION, BLOCK, "old-node", 0),
          new ServerCounters(), () -> Map.of("rubix_cache_used_bytes", 0L), new EngineCounters());
      // libthrift's TBaseProcessor takes the map with a raw TBase
      @SuppressWarnings("rawtypes")
      Map<String, ProcessFunction<BookKeeperService.Iface, ? extends TBase>> calls =
          new HashMap<>(new BookKeeperService.Processor<BookKeeperService.Iface>(handler).getProcessMapView());
      calls.remove("insight");
      FrameDeadlineServerSocket socket = new FrameDeadlineServerSocket(new InetSocketAddress("127.0.0.1", 0), 16 * BLOCK, Duration.ofSeconds(10),
          new ConnectionAuth(secret, new SecureRandom()), new ServerCounters());
      TThreadedSelectorServer server = new TThreadedSelectorServer(new TThreadedSelectorServer.Args(socket)
          .processor(new TBaseProcessor<BookKeeperService.Iface>(handler, calls) {})
          .protocolFactory(new TBinaryProtocol.Factory())
          .transportFactory(new TFramedTransport.Factory(16 * BLOCK)));
      Thread thread = new Thread(server::serve, "older-bookkeeper");
      thread.setDaemon(true);
      thread.start();
      try {
        while (!server.isServing()) {
          Thread.onSpinWait();
        }
        try (BookKeeperClient client = BookKeeperTestSupport.client(BookKeeperTestSupport.clientConf(cacheDir, socket.getPort()), BLOCK)) {
          assertThatThrownBy(client::insight).isInstanceOf(UnknownCallException.class).hasMessageContaining("does not know this call");
          assertThat(client.usage().disks()).hasSize(1); // no back-off after it
          assertThat(client.failures()).isZero();
        }

        String[] common = {"--port", Integer.toString(socket.getPort()), "-D", "rubix.cache.dirs=" + cacheDir};
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new RubixCli(name -> null).execute(concat("status", common), new PrintWriter(out), new PrintWriter(err));
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("BookKeeper old-node", "(this daemon does not report tables: an older version)");

        out = new StringWriter();
        code = new RubixCli(name -> null).execute(concat("stats", concat("--json", common)), new PrintWriter(out), new PrintWriter(err));
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("\"nodeId\":\"old-node\"").doesNotContain("\"tables\"", "\"workingSet\"");
      } finally {
        server.stop();
        socket.close();
        thread.join(10_000);
      }
    }
  }

  private static String[] concat(String first, String... rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
