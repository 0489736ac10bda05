package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.rubix.core.cluster.NodeSource;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker list of a Presto or Trino coordinator: {@code GET /v1/node} lists the failure detector's
 * record of every node the coordinator discovered (not itself), {@code GET /v1/node/failed} the ones it
 * considers failed; both are JSON arrays of objects whose {@code uri} is the node's HTTP URI (Trino:
 * its {@code /v1/status} URI). A node is live while /v1/node holds more entries for its URI than
 * /v1/node/failed: a restarted worker has an old failed entry and a new active one under the same URI
 * until the old one expires. The coordinator is added by the host of its URL when it schedules work
 * too.
 */
final class PrestoNodeSource implements NodeSource {
  private final RestHttp http;
  private final PrestoClusterConfig config;
  private final URI nodes;
  private final URI failed;

  PrestoNodeSource(RestHttp http, PrestoClusterConfig config) {
    this.http = requireNonNull(http, "http is null");
    this.config = requireNonNull(config, "config is null");
    this.nodes = URI.create(config.coordinator() + "/v1/node");
    this.failed = URI.create(config.coordinator() + "/v1/node/failed");
  }

  @Override
  public List<String> fetchHosts() throws IOException, InterruptedException {
    Map<String, String> headers = new HashMap<>();
    headers.put(config.flavor().userHeader(), config.user());
    config.authorization().header().ifPresent(value -> headers.put("Authorization", value));
    Map<String, Integer> live = count(http.getJson(nodes, headers), nodes);
    Map<String, Integer> dead = count(http.getJson(failed, headers), failed);
    List<String> hosts = new ArrayList<>();
    for (Map.Entry<String, Integer> entry : live.entrySet()) {
      if (entry.getValue() > dead.getOrDefault(entry.getKey(), 0)) {
        hosts.add(host(entry.getKey(), nodes));
      }
    }
    if (config.includeCoordinator()) {
      hosts.add(config.coordinator().getHost());
    }
    return hosts;
  }

  /** Entries per node URI of one answer. */
  private static Map<String, Integer> count(JsonNode answer, URI from) throws IOException {
    if (!answer.isArray()) {
      throw new IOException("Malformed answer of " + from + ": expected a JSON array of nodes, got " + answer.getNodeType());
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (JsonNode entry : answer) {
      JsonNode uri = entry.get("uri");
      if (uri == null || !uri.isTextual()) {
        throw new IOException("Malformed answer of " + from + ": a node without a \"uri\" string");
      }
      counts.merge(uri.asText(), 1, Integer::sum);
    }
    return counts;
  }

  private static String host(String uri, URI from) throws IOException {
    try {
      String host = new URI(uri).getHost();
      if (host == null || host.isEmpty()) {
        throw new IOException("Malformed answer of " + from + ": node uri " + uri + " has no host");
      }
      return host;
    } catch (URISyntaxException e) {
      throw new IOException("Malformed answer of " + from + ": node uri " + uri + " is not a URI");
    }
  }

  @Override
  public String description() {
    return config.flavor().managerName() + " " + config.coordinator();
  }
}
