package io.rubix.spark.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** One scrape of a BookKeeper's Prometheus endpoint: each metric's value, summed over its labels. */
final class NodeMetrics {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final Map<String, Double> values;

  private NodeMetrics(Map<String, Double> values) {
    this.values = values;
  }

  static NodeMetrics scrape(String address, int port) throws IOException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + address + ":" + port + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build();
    String body;
    try {
      body = HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted scraping " + request.uri(), e);
    }
    Map<String, Double> values = new HashMap<>();
    for (String line : body.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      int brace = line.indexOf('{');
      String name = brace >= 0 && brace < space ? line.substring(0, brace) : line.substring(0, space);
      values.merge(name, Double.parseDouble(line.substring(space + 1)), Double::sum);
    }
    return new NodeMetrics(values);
  }

  long get(String name) {
    return values.getOrDefault(name, 0.0).longValue();
  }
}
