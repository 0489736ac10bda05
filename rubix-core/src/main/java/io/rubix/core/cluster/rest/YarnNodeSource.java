package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.rubix.core.cluster.NodeSource;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The RUNNING NodeManagers of a YARN cluster, from the ResourceManager's
 * {@code GET /ws/v1/cluster/nodes?states=RUNNING}: {@code {"nodes":{"node":[{"nodeHostName":..,
 * "state":"RUNNING",..}]}}}, or {@code {"nodes":null}} when there is none. With several
 * ResourceManagers (HA) each is tried in turn, starting with the one that answered last: a standby
 * answers with a redirect (307) or a text page, which fails that attempt and moves on to the next.
 */
final class YarnNodeSource implements NodeSource {
  private final RestHttp http;
  private final List<URI> requests;
  private final String description;
  // the refreshing thread is the only caller
  private int preferred;

  YarnNodeSource(RestHttp http, YarnClusterConfig config) {
    this.http = requireNonNull(http, "http is null");
    String query = "?states=RUNNING&user.name=" + URLEncoder.encode(config.user(), StandardCharsets.UTF_8);
    List<URI> uris = new ArrayList<>();
    for (URI rm : config.resourceManagers()) {
      uris.add(URI.create(rm + "/ws/v1/cluster/nodes" + query));
    }
    this.requests = List.copyOf(uris);
    this.description = "yarn " + config.resourceManagers().stream().map(URI::toString).collect(Collectors.joining(","));
  }

  @Override
  public List<String> fetchHosts() throws IOException, InterruptedException {
    List<String> failures = new ArrayList<>();
    for (int attempt = 0; attempt < requests.size(); attempt++) {
      int index = (preferred + attempt) % requests.size();
      try {
        List<String> hosts = parse(http.getJson(requests.get(index), Map.of()), requests.get(index));
        preferred = index;
        return hosts;
      } catch (IOException e) {
        failures.add(e.getMessage());
      }
    }
    throw new IOException(requests.size() == 1 ? failures.get(0) : "No ResourceManager answered: " + String.join("; ", failures));
  }

  static List<String> parse(JsonNode answer, URI from) throws IOException {
    if (!answer.isObject() || !answer.has("nodes")) {
      throw new IOException("Malformed answer of " + from + ": expected {\"nodes\":...}");
    }
    JsonNode nodes = answer.get("nodes");
    if (nodes.isNull() || nodes.isEmpty()) {
      return List.of();
    }
    JsonNode node = nodes.get("node");
    if (node == null || node.isNull()) {
      return List.of();
    }
    List<String> hosts = new ArrayList<>();
    // an array, or a single object from JSON writers that unwrap one-element arrays
    for (JsonNode entry : node.isArray() ? node : List.of(node)) {
      JsonNode host = entry.get("nodeHostName");
      if (host == null || !host.isTextual() || host.asText().isBlank()) {
        throw new IOException("Malformed answer of " + from + ": a node without a \"nodeHostName\" string");
      }
      JsonNode state = entry.get("state");
      if (state == null || "RUNNING".equals(state.asText())) {
        hosts.add(host.asText());
      }
    }
    return hosts;
  }

  @Override
  public String description() {
    return description;
  }
}
