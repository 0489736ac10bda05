package io.rubix.bookkeeper.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/** A Prometheus text-format endpoint ({@code GET /metrics}) on the JDK's built-in HTTP server. */
public final class MetricsEndpoint implements AutoCloseable {
  private final HttpServer server;

  /** One sample: a metric name, its labels rendered as {@code {k="v"}} or empty, and a value. */
  public record Sample(String name, String labels, double value) {}

  public MetricsEndpoint(String bindAddress, int port, Supplier<Iterable<Sample>> samples) throws IOException {
    server = HttpServer.create(new InetSocketAddress(bindAddress, port), 16);
    server.setExecutor(Executors.newSingleThreadExecutor(r -> {
      Thread thread = new Thread(r, "rubix-metrics");
      thread.setDaemon(true);
      return thread;
    }));
    server.createContext("/metrics", exchange -> respond(exchange, samples));
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange exchange, Supplier<Iterable<Sample>> samples) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      StringBuilder text = new StringBuilder();
      String previous = null;
      for (Sample sample : samples.get()) {
        if (!sample.name().equals(previous)) {
          text.append("# TYPE ").append(sample.name()).append(' ').append(sample.name().endsWith("_bytes") && !sample.name().contains("total")
              ? "gauge" : "untyped").append('\n');
          previous = sample.name();
        }
        text.append(sample.name()).append(sample.labels()).append(' ').append(format(sample.value())).append('\n');
      }
      byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static String format(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
  }

  /** Renders {@code {key="value"}} with Prometheus escaping. */
  public static String labels(Map<String, String> labels) {
    if (labels.isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder("{");
    labels.forEach((k, v) -> text.append(text.length() > 1 ? "," : "").append(k).append("=\"")
        .append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"'));
    return text.append('}').toString();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
