package io.rubix.hive.testing;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A YARN cluster on this machine in two processes: the ResourceManager ({@link MiniYarnMain}) and a
 * NodeManager (Hadoop's own {@code NodeManager} main class with the yarn-site.xml the first wrote),
 * on ephemeral ports. The NodeManager launches containers as processes with the default container
 * executor. Closing stops the NodeManager (and its containers), then the ResourceManager.
 */
public final class MiniYarnProcess implements AutoCloseable {
  private static final Pattern NODE_HOST = Pattern.compile("\"nodeHostName\"\\s*:\\s*\"([^\"]+)\"");

  private final Process resourceManagerProcess;
  private final Process nodeManagerProcess;
  private final URI resourceManager;

  private MiniYarnProcess(Process resourceManagerProcess, Process nodeManagerProcess, URI resourceManager) {
    this.resourceManagerProcess = resourceManagerProcess;
    this.nodeManagerProcess = nodeManagerProcess;
    this.resourceManager = resourceManager;
  }

  /**
   * Starts the cluster and waits until the ResourceManager lists the NodeManager as RUNNING.
   *
   * @param dir the cluster's work directory (logs, container directories)
   * @param classpath Hadoop's and Tez's jars (and the class {@link MiniYarnMain})
   * @param containerClasspath {@code yarn.application.classpath}: what every container finds on its classpath
   * @param yarnSite where to write the cluster's client configuration
   */
  public static MiniYarnProcess start(Path dir, List<Path> classpath, List<Path> containerClasspath, Path yarnSite,
      Duration timeout) throws IOException {
    requireNonNull(classpath, "classpath is null");
    long deadline = System.nanoTime() + timeout.toNanos();
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("log4j2.properties"), String.join("\n",
        "status = WARN",
        "appender.console.type = Console",
        "appender.console.name = console",
        "appender.console.target = SYSTEM_ERR",
        "appender.console.layout.type = PatternLayout",
        "appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c{1}: %m%n",
        "rootLogger.level = INFO",
        "rootLogger.appenderRef.console.ref = console",
        ""));
    Path containerClasspathFile = dir.resolve("container-classpath.txt");
    Files.writeString(containerClasspathFile, String.join(",", containerClasspath.stream().map(Path::toString).toList()));
    Process resourceManagerProcess = java(dir, classpath, "resourcemanager.log", List.of(MiniYarnMain.class.getName(),
        dir.toString(), yarnSite.toString(), containerClasspathFile.toString()));
    Process nodeManagerProcess = null;
    try {
      String line = firstLine(resourceManagerProcess, timeout);
      if (line == null || !line.startsWith(MiniYarnMain.STARTED)) {
        throw new IOException("ResourceManager printed " + line + " instead of its start line; see " + dir.resolve("resourcemanager.log"));
      }
      URI resourceManager = URI.create(line.substring(MiniYarnMain.STARTED.length()));
      Path nodeConf = Files.createDirectories(dir.resolve("nodemanager-conf"));
      Files.copy(yarnSite, nodeConf.resolve("yarn-site.xml"), StandardCopyOption.REPLACE_EXISTING);
      List<Path> nodeClasspath = new ArrayList<>();
      nodeClasspath.add(nodeConf);
      nodeClasspath.addAll(classpath);
      nodeManagerProcess = java(dir, nodeClasspath, "nodemanager.log",
          List.of("org.apache.hadoop.yarn.server.nodemanager.NodeManager"));
      MiniYarnProcess cluster = new MiniYarnProcess(resourceManagerProcess, nodeManagerProcess, resourceManager);
      cluster.awaitRunningNode(deadline, dir);
      return cluster;
    } catch (IOException | RuntimeException e) {
      if (nodeManagerProcess != null) {
        nodeManagerProcess.destroyForcibly();
      }
      resourceManagerProcess.destroyForcibly();
      throw e;
    }
  }

  /** The ResourceManager's web address ({@code http://host:port}): its REST API. */
  public URI resourceManager() {
    return resourceManager;
  }

  /** The host names of the NodeManagers the ResourceManager's REST API lists as RUNNING. */
  public List<String> runningNodes() throws IOException {
    URI nodes = URI.create(resourceManager + "/ws/v1/cluster/nodes?states=RUNNING");
    HttpResponse<String> response;
    try {
      response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(nodes).header("Accept", "application/json").build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted asking " + nodes, e);
    }
    if (response.statusCode() != 200) {
      throw new IOException("GET " + nodes + " answered HTTP " + response.statusCode() + ": " + response.body());
    }
    List<String> hosts = new ArrayList<>();
    Matcher host = NODE_HOST.matcher(response.body());
    while (host.find()) {
      hosts.add(host.group(1));
    }
    return hosts;
  }

  /** Polls the REST API (what RubiX's yarn cluster manager reads) until the NodeManager is RUNNING. */
  private void awaitRunningNode(long deadline, Path dir) throws IOException {
    while (runningNodes().isEmpty()) {
      if (System.nanoTime() > deadline || !nodeManagerProcess.isAlive()) {
        throw new IOException("No RUNNING NodeManager at " + resourceManager + "; see " + dir.resolve("nodemanager.log"));
      }
      try {
        nodeManagerProcess.waitFor(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted waiting for the NodeManager", e);
      }
    }
  }

  private static Process java(Path dir, List<Path> classpath, String log, List<String> main) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx384m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
    command.add("-Dlog4j.configurationFile=" + dir.resolve("log4j2.properties"));
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()));
    command.addAll(main);
    return new ProcessBuilder(command).directory(dir.toFile()).redirectError(dir.resolve(log).toFile()).start();
  }

  private static String firstLine(Process process, Duration timeout) throws IOException {
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    try {
      return CompletableFuture.supplyAsync(() -> {
        try {
          return out.readLine();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted starting the ResourceManager", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("ResourceManager did not start within " + timeout, e);
    }
  }

  @Override
  public void close() {
    stop(nodeManagerProcess);
    try {
      resourceManagerProcess.getOutputStream().close();
    } catch (IOException e) {
      resourceManagerProcess.destroyForcibly();
    }
    stop(resourceManagerProcess);
  }

  private static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
