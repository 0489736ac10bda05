package io.rubix.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link S3Server} as its own JVM, for tests and benchmarks whose classpath cannot host S3Proxy
 * (Spark 4 brings Servlet 5, S3Proxy 4 needs Servlet 6).
 *
 * <pre>
 * java -cp s3proxy-4.1.0-jar-with-dependencies.jar:rubix-core-tests.jar io.rubix.testing.S3ServerMain \
 *     [--dir DIR] [--bucket NAME]... [--latency-ms 30] [--metadata-latency-ms 30] [--bandwidth 100m]
 * </pre>
 *
 * <p>Serves S3 on 127.0.0.1 (port 0) with the credentials {@link S3Server#ACCESS_KEY} /
 * {@link S3Server#SECRET_KEY}, and a control endpoint on 127.0.0.1 (port 0):
 * {@code GET /counters} answers {@code gets=N heads=N lists=N bytes=N} lines,
 * {@code GET /requests} one {@code METHOD bucket/key<TAB>N} line per object requested (GET, HEAD, LIST),
 * {@code POST /reset} zeroes the counters, {@code POST /settings?latencyMs=N&metadataLatencyMs=N&bandwidth=N}
 * changes the simulated store (first-byte latency of GETs, latency of HEADs and LISTs, bandwidth), {@code POST /bucket?name=B} creates a bucket. When started, one line
 * {@code S3SERVER endpoint=http://127.0.0.1:P control=http://127.0.0.1:C} goes to stdout. The server
 * exits when its stdin closes, so a child process dies with its parent.
 */
public final class S3ServerMain {
  /** Prefix of the line that announces the ports on stdout. */
  public static final String READY = "S3SERVER ";

  private S3ServerMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = null;
    List<String> buckets = new ArrayList<>();
    long latencyMs = 0;
    long metadataLatencyMs = 0;
    long bandwidth = 0;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (i + 1 >= args.length) {
        throw usage("missing value for " + arg);
      }
      String value = args[++i];
      switch (arg) {
        case "--dir" -> dir = Path.of(value);
        case "--bucket" -> buckets.add(value);
        case "--latency-ms" -> latencyMs = Long.parseLong(value);
        case "--metadata-latency-ms" -> metadataLatencyMs = Long.parseLong(value);
        case "--bandwidth" -> bandwidth = parseBytes(value);
        default -> throw usage("unknown option " + arg);
      }
    }
    S3Server server;
    if (dir == null) {
      server = S3Server.inMemory();
    } else {
      Files.createDirectories(dir);
      server = S3Server.onDisk(dir);
    }
    CountingBlobStore store = server.store();
    for (String bucket : buckets) {
      createBucket(server, bucket);
    }
    store.setFirstByteLatency(Duration.ofMillis(latencyMs));
    store.setMetadataLatency(Duration.ofMillis(metadataLatencyMs));
    store.setBandwidth(bandwidth);

    HttpServer control = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    control.createContext("/counters", exchange -> respond(exchange, counters(store)));
    control.createContext("/requests", exchange -> {
      StringBuilder lines = new StringBuilder();
      store.requestsPerObject().forEach((request, count) -> lines.append(request).append('\t').append(count).append('\n'));
      respond(exchange, lines.toString());
    });
    control.createContext("/reset", exchange -> {
      String before;
      synchronized (store) {
        before = counters(store);
        store.reset();
      }
      respond(exchange, before);
    });
    control.createContext("/settings", exchange -> {
      Map<String, String> query = query(exchange.getRequestURI());
      if (query.containsKey("latencyMs")) {
        store.setFirstByteLatency(Duration.ofMillis(Long.parseLong(query.get("latencyMs"))));
      }
      if (query.containsKey("metadataLatencyMs")) {
        store.setMetadataLatency(Duration.ofMillis(Long.parseLong(query.get("metadataLatencyMs"))));
      }
      if (query.containsKey("bandwidth")) {
        store.setBandwidth(parseBytes(query.get("bandwidth")));
      }
      respond(exchange, counters(store));
    });
    control.createContext("/bucket", exchange -> {
      createBucket(server, query(exchange.getRequestURI()).get("name"));
      respond(exchange, "ok\n");
    });
    control.start();

    System.out.println(READY + "endpoint=" + server.endpoint() + " control=http://127.0.0.1:" + control.getAddress().getPort());
    System.out.flush();
    InputStream in = System.in;
    while (in.read() >= 0) {
      // wait for the parent to close our stdin
    }
    control.stop(0);
    server.close();
    System.exit(0);
  }

  private static void createBucket(S3Server server, String bucket) {
    try {
      server.createBucket(bucket);
    } catch (RuntimeException e) {
      // already there (an on-disk store reused across runs)
      if (!String.valueOf(e.getMessage()).contains("BucketAlready")) {
        System.err.println("Creating bucket " + bucket + ": " + e);
      }
    }
  }

  private static String counters(CountingBlobStore store) {
    return "gets=" + store.gets() + "\nheads=" + store.heads() + "\nlists=" + store.lists() + "\nbytes=" + store.bytesServed() + "\n";
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> values = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          values.put(pair.substring(0, eq), java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return values;
  }

  private static void respond(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Parses a byte count with an optional k/m/g suffix (powers of 1000: bandwidths are decimal). */
  static long parseBytes(String value) {
    String v = value.trim().toLowerCase(java.util.Locale.ROOT);
    long unit = 1;
    if (v.endsWith("b")) {
      v = v.substring(0, v.length() - 1);
    }
    switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
      case 'k' -> unit = 1_000L;
      case 'm' -> unit = 1_000_000L;
      case 'g' -> unit = 1_000_000_000L;
      default -> unit = 1;
    }
    if (unit != 1) {
      v = v.substring(0, v.length() - 1);
    }
    return Math.round(Double.parseDouble(v) * unit);
  }

  private static IllegalArgumentException usage(String problem) {
    return new IllegalArgumentException(problem
        + "; usage: S3ServerMain [--dir DIR] [--bucket NAME]... [--latency-ms MS] [--metadata-latency-ms MS]"
        + " [--bandwidth BYTES_PER_SECOND[k|m|g]]");
  }
}
