package io.rubix.bookkeeper.metrics;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics} on the JDK's built-in HTTP server, bound to the address it is given, without
 * authentication (what it serves: counters, levels, cache directories, rule names and table prefixes;
 * docs/operations.md, "Metrics port"). Each scrape collects the
 * registered collectors once and writes them with the Prometheus client's writers: the Prometheus text
 * format 0.0.4 by default, OpenMetrics 1.0 when the scraper's {@code Accept} header asks for
 * {@code application/openmetrics-text}. A scraper asking for the protobuf format gets text (no protobuf
 * writer is bundled).
 *
 * <p>Threads: one daemon thread serves the requests, one at a time.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  /** The writers with the library's defaults, not read from system properties or prometheus.properties. */
  private final ExpositionFormats formats = ExpositionFormats.init(PrometheusProperties.builder().build());

  public MetricsEndpoint(String bindAddress, int port, MultiCollector collector) throws IOException {
    registry.register(requireNonNull(collector, "collector is null"));
    server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
    executor = Executors.newSingleThreadExecutor(r -> {
      Thread thread = new Thread(r, "rubix-metrics");
      thread.setDaemon(true);
      return thread;
    });
    server.setExecutor(executor);
    server.createContext("/metrics", this::respond);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void respond(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      ExpositionFormatWriter writer = writerFor(exchange.getRequestHeaders().getFirst("Accept"));
      ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
      try {
        writer.write(body, registry.scrape());
      } catch (RuntimeException e) {
        LOG.warn("Collecting the metrics for {} failed", exchange.getRemoteAddress(), e);
        exchange.sendResponseHeaders(500, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
      exchange.sendResponseHeaders(200, body.size());
      try (OutputStream out = exchange.getResponseBody()) {
        body.writeTo(out);
      }
    }
  }

  /** The library's choice for {@code accept}, or the Prometheus text format when that choice is not available (protobuf). */
  ExpositionFormatWriter writerFor(String accept) {
    ExpositionFormatWriter writer = formats.findWriter(accept);
    return writer.isAvailable() ? writer : formats.getPrometheusTextFormatWriter();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
