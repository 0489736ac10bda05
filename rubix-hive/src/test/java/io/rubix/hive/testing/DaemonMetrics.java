package io.rubix.hive.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** One scrape of a BookKeeper daemon's Prometheus endpoint: each metric's value, summed over its labels. */
public final class DaemonMetrics {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Map<String, Double> values;

  private DaemonMetrics(Map<String, Double> values) {
    this.values = values;
  }

  /** Reads {@code http://address:port/metrics}. */
  public static DaemonMetrics scrape(String address, int port) throws IOException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + address + ":" + port + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build();
    HttpResponse<String> response;
    try {
      response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted scraping " + request.uri(), e);
    }
    if (response.statusCode() != 200) {
      throw new IOException("GET " + request.uri() + " answered HTTP " + response.statusCode());
    }
    Map<String, Double> values = new HashMap<>();
    for (String line : response.body().split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      int brace = line.indexOf('{');
      String name = brace >= 0 && brace < space ? line.substring(0, brace) : line.substring(0, space);
      values.merge(name, Double.parseDouble(line.substring(space + 1)), Double::sum);
    }
    return new DaemonMetrics(values);
  }

  /**
   * The metric's value (summed over its labels), by its name on {@code /metrics} (counters end in
   * {@code _total}); a name the daemon does not export fails rather than reading as 0, which would
   * pass for "nothing counted".
   */
  public long get(String name) {
    Double value = values.get(name);
    if (value == null) {
      throw new IllegalArgumentException("The daemon exports no metric " + name);
    }
    return value.longValue();
  }
}
