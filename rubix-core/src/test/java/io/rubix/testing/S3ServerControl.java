package io.rubix.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A client of {@link S3ServerMain}'s control endpoint: its counters and the simulated store's
 * settings. {@link S3ServerProcess} holds one; another process that only knows the endpoint's address
 * (a benchmark's child JVM) makes its own.
 */
public final class S3ServerControl {
  /** What the server has served since the last reset. */
  public record Counters(long gets, long heads, long lists, long bytes) {}

  private final URI control;
  private final HttpClient http = HttpClient.newHttpClient();

  /** A client of the control endpoint at {@code control}, {@code http://127.0.0.1:PORT}. */
  public S3ServerControl(URI control) {
    this.control = requireNonNull(control, "control is null");
  }

  public URI uri() {
    return control;
  }

  public Counters counters() throws IOException {
    return parse(call("GET", "/counters"));
  }

  /**
   * The requests since the last reset per object, sorted: {@code "GET bucket/key"},
   * {@code "HEAD bucket/key"}, {@code "LIST bucket/prefix"} to their counts.
   */
  public Map<String, Long> requests() throws IOException {
    Map<String, Long> requests = new TreeMap<>();
    for (String line : call("GET", "/requests").split("\n")) {
      int tab = line.lastIndexOf('\t');
      if (tab > 0) {
        requests.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1).trim()));
      }
    }
    return requests;
  }

  /** Zeroes the counters and returns what they were. */
  public Counters reset() throws IOException {
    return parse(call("POST", "/reset"));
  }

  /**
   * Sets the first-byte latency of every GET, the latency of every HEAD and LIST, and the bandwidth of
   * each GET (0: unlimited).
   */
  public void settings(long latencyMs, long metadataLatencyMs, long bytesPerSecond) throws IOException {
    call("POST", "/settings?latencyMs=" + latencyMs + "&metadataLatencyMs=" + metadataLatencyMs + "&bandwidth=" + bytesPerSecond);
  }

  public void createBucket(String bucket) throws IOException {
    call("POST", "/bucket?name=" + URLEncoder.encode(bucket, StandardCharsets.UTF_8));
  }

  private String call(String method, String path) throws IOException {
    HttpRequest request = HttpRequest.newBuilder(control.resolve(path))
        .method(method, HttpRequest.BodyPublishers.noBody())
        .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("S3 server control " + method + " " + control.resolve(path) + " answered " + response.statusCode());
      }
      return response.body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted calling S3 server control " + control.resolve(path), e);
    }
  }

  private static Counters parse(String body) {
    Map<String, Long> values = new HashMap<>();
    for (String line : body.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        values.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
      }
    }
    return new Counters(values.getOrDefault("gets", 0L), values.getOrDefault("heads", 0L), values.getOrDefault("lists", 0L),
        values.getOrDefault("bytes", 0L));
  }
}
