package io.rubix.core.cluster.rest;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Answers in the formats the engines emit. Presto and Trino serialise their failure detector's
 * {@code HeartbeatFailureDetector.Stats} with airlift's JSON mapper (null properties left out; Trino's
 * uri is the node's /v1/status URI); YARN's ResourceManager writes {@code NodesInfo}.
 */
final class EngineAnswers {
  private EngineAnswers() {}

  /** A healthy node of /v1/node. */
  static String activeStats(String uri) {
    return """
        {"uri":"%s","recentRequests":24.59,"recentFailures":0.0,"recentSuccesses":24.59,\
        "lastRequestTime":"2026-11-22T07:40:01.123Z","lastResponseTime":"2026-11-22T07:40:01.127Z",\
        "age":"5.02m","recentFailureRatio":0.0,"recentFailuresByType":{}}""".formatted(uri);
  }

  /** A node the failure detector gave up on, as /v1/node and /v1/node/failed list it. */
  static String failedStats(String uri) {
    return """
        {"uri":"%s","recentRequests":20.1,"recentFailures":18.2,"recentSuccesses":1.9,\
        "lastRequestTime":"2026-11-22T07:40:01.123Z","lastResponseTime":"2026-11-22T07:40:01.124Z",\
        "age":"2.10h","recentFailureRatio":0.905,\
        "lastFailureInfo":{"type":"java.net.ConnectException","message":"Connection refused",\
        "suppressed":[],"stack":["java.base/sun.nio.ch.Net.pollConnect(Native Method)",\
        "java.base/sun.nio.ch.Net.pollConnectNow(Net.java:672)"]},\
        "recentFailuresByType":{"java.net.ConnectException":18.2}}""".formatted(uri);
  }

  /** A node discovered a moment ago and never pinged: its failure ratio is 0/0. */
  static String newStats(String uri) {
    return """
        {"uri":"%s","recentRequests":0.0,"recentFailures":0.0,"recentSuccesses":0.0,\
        "age":"12.00ms","recentFailureRatio":"NaN","recentFailuresByType":{}}""".formatted(uri);
  }

  static String array(List<String> entries) {
    return entries.stream().collect(Collectors.joining(",", "[", "]"));
  }

  /** PrestoDB lists nodes by their HTTP URI. */
  static String prestoUri(String host) {
    return "http://" + host + ":8080";
  }

  /** Trino's failure detector pings, and lists, each node's /v1/status. */
  static String trinoUri(String host) {
    return "http://" + host + ":8080/v1/status";
  }

  /** One NodeManager of /ws/v1/cluster/nodes. */
  static String yarnNode(String host, String state) {
    return """
        {"rack":"/default-rack","state":"%2$s","id":"%1$s:45454","nodeHostName":"%1$s","nodeHTTPAddress":"%1$s:8042",\
        "lastHealthUpdate":1763797201123,"version":"3.4.3","healthReport":"","numContainers":2,"usedMemoryMB":4096,\
        "availMemoryMB":12288,"usedVirtualCores":2,"availableVirtualCores":14,"numRunningOpportContainers":0,\
        "usedMemoryOpportGB":0,"usedVirtualCoresOpport":0,"numQueuedContainers":0,\
        "resourceUtilization":{"nodePhysicalMemoryMB":9120,"nodeVirtualMemoryMB":9120,"nodeCPUUsage":0.12,\
        "aggregatedContainersPhysicalMemoryMB":3000,"aggregatedContainersVirtualMemoryMB":3100,"containersCPUUsage":0.1}}"""
        .formatted(host, state);
  }

  static String yarnNodes(List<String> nodes) {
    return nodes.isEmpty() ? "{\"nodes\":null}" : "{\"nodes\":{\"node\":" + array(nodes) + "}}";
  }
}
