package io.rubix.core.cluster.rest;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * A real HTTP server on 127.0.0.1 and an ephemeral port whose answers a test sets per path, recording
 * each request (path, query, headers).
 */
final class LoopbackHttpServer implements AutoCloseable {
  /** How one path answers. */
  @FunctionalInterface
  interface Handler {
    Answer answer(Request request) throws Exception;
  }

  record Request(String path, String query, Headers headers) {
    String header(String name) {
      return headers.getFirst(name);
    }
  }

  record Answer(int status, String body, Map<String, String> headers) {
    static Answer json(String body) {
      return new Answer(200, body, Map.of("Content-Type", "application/json"));
    }

    static Answer status(int status, String body) {
      return new Answer(status, body, Map.of("Content-Type", "text/plain"));
    }
  }

  private final HttpServer server;
  private final String scheme;
  private final ExecutorService executor = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "loopback-http");
    thread.setDaemon(true);
    return thread;
  });
  private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  LoopbackHttpServer() throws IOException {
    this(null);
  }

  /** An https server with {@code tls}'s key when not null. */
  LoopbackHttpServer(SSLContext tls) throws IOException {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0);
    if (tls == null) {
      server = HttpServer.create(address, 0);
    } else {
      HttpsServer https = HttpsServer.create(address, 0);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      server = https;
    }
    scheme = tls == null ? "http" : "https";
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** {@code http://127.0.0.1:<port>} (https for a TLS server). */
  URI url() {
    return URI.create(scheme + "://127.0.0.1:" + server.getAddress().getPort());
  }

  void on(String path, Handler handler) {
    handlers.put(path, handler);
  }

  int hits(String path) {
    AtomicInteger count = hits.get(path);
    return count == null ? 0 : count.get();
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    Request request = new Request(path, exchange.getRequestURI().getRawQuery(), exchange.getRequestHeaders());
    requests.add(request);
    hits.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    Answer answer;
    try {
      Handler handler = handlers.get(path);
      answer = handler == null ? Answer.status(404, "no handler for " + path) : handler.answer(request);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      answer = Answer.status(503, "interrupted");
    } catch (Exception e) {
      answer = Answer.status(500, e.toString());
    }
    byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
    answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
    try {
      exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (IOException e) {
      // the client gave up (timeout): nothing to answer
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
