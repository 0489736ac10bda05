package io.rubix.hive.testing;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;

/**
 * A YARN cluster on this machine, each daemon its own process: the ResourceManager ({@link
 * MiniYarnMain}) and one NodeManager per node address (Hadoop's own {@code NodeManager} main class
 * with the yarn-site.xml the first wrote, plus the node's address and directories), on ephemeral
 * ports. A NodeManager registers under the canonical name of {@code yarn.nodemanager.address}'s host
 * ({@code ContainerManagerImpl#buildNodeId}, since {@code yarn.nodemanager.bind-host} is set): for an
 * address with no name in /etc/hosts, the address itself, which is then the node's name for the
 * scheduler, Tez's locality and RubiX's yarn cluster manager. NodeManagers launch containers as
 * processes with the default container executor; each container finds its node's name in {@code
 * NM_HOST}. Closing stops the NodeManagers (and their containers), then the ResourceManager.
 */
public final class MiniYarnProcess implements AutoCloseable {
  private static final Pattern NODE_HOST = Pattern.compile("\"nodeHostName\"\\s*:\\s*\"([^\"]+)\"");

  private final Process resourceManagerProcess;
  private final List<Process> nodeManagerProcesses;
  private final URI resourceManager;

  private MiniYarnProcess(Process resourceManagerProcess, List<Process> nodeManagerProcesses, URI resourceManager) {
    this.resourceManagerProcess = resourceManagerProcess;
    this.nodeManagerProcesses = nodeManagerProcesses;
    this.resourceManager = resourceManager;
  }

  /**
   * Starts the cluster and waits until the ResourceManager lists every NodeManager as RUNNING.
   *
   * @param dir the cluster's work directory (logs, container directories)
   * @param classpath Hadoop's and Tez's jars (and the class {@link MiniYarnMain})
   * @param containerClasspath {@code yarn.application.classpath}: what every container finds on its classpath
   * @param yarnSite where to write the cluster's client configuration
   * @param nodes the address of each NodeManager (its {@code yarn.nodemanager.address} host), distinct
   * @param capacityScheduler what the cluster's capacity-scheduler.xml sets besides its one queue
   */
  public static MiniYarnProcess start(Path dir, List<Path> classpath, List<Path> containerClasspath, Path yarnSite,
      List<String> nodes, Map<String, String> capacityScheduler, Duration timeout) throws IOException {
    requireNonNull(classpath, "classpath is null");
    if (nodes.isEmpty() || Set.copyOf(nodes).size() != nodes.size()) {
      throw new IllegalArgumentException("NodeManager addresses must be distinct and at least one: " + nodes);
    }
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
    List<Path> resourceManagerClasspath = new ArrayList<>();
    resourceManagerClasspath.add(writeSchedulerConf(dir.resolve("resourcemanager-conf"), capacityScheduler));
    resourceManagerClasspath.addAll(classpath);
    Process resourceManagerProcess = java(dir, resourceManagerClasspath, "resourcemanager.log", List.of(MiniYarnMain.class.getName(),
        dir.toString(), yarnSite.toString(), containerClasspathFile.toString()));
    List<Process> nodeManagerProcesses = new ArrayList<>();
    try {
      String line = firstLine(resourceManagerProcess, timeout);
      if (line == null || !line.startsWith(MiniYarnMain.STARTED)) {
        throw new IOException("ResourceManager printed " + line + " instead of its start line; see " + dir.resolve("resourcemanager.log"));
      }
      URI resourceManager = URI.create(line.substring(MiniYarnMain.STARTED.length()));
      for (String node : nodes) {
        Path nodeDir = dir.resolve("nodemanager-" + node);
        Path nodeConf = Files.createDirectories(nodeDir.resolve("conf"));
        writeNodeSite(yarnSite, nodeConf.resolve("yarn-site.xml"), node, nodeDir);
        List<Path> nodeClasspath = new ArrayList<>();
        nodeClasspath.add(nodeConf);
        nodeClasspath.addAll(classpath);
        nodeManagerProcesses.add(java(dir, nodeClasspath, "nodemanager-" + node + ".log",
            List.of("org.apache.hadoop.yarn.server.nodemanager.NodeManager")));
      }
      MiniYarnProcess cluster = new MiniYarnProcess(resourceManagerProcess, List.copyOf(nodeManagerProcesses), resourceManager);
      cluster.awaitRunningNodes(nodes, deadline, dir);
      return cluster;
    } catch (IOException | RuntimeException e) {
      nodeManagerProcesses.forEach(Process::destroyForcibly);
      resourceManagerProcess.destroyForcibly();
      throw e;
    }
  }

  /**
   * The ResourceManager's capacity-scheduler.xml, first on its classpath as a cluster's configuration
   * directory is: without it the CapacityScheduler loads the one in hadoop-yarn-server-tests' test jar,
   * which sets {@code yarn.scheduler.capacity.node-locality-delay=-1} (no delay scheduling: a request
   * goes rack-local at the first node that heartbeats) where Hadoop's own default is 40.
   */
  private static Path writeSchedulerConf(Path confDir, Map<String, String> capacityScheduler) throws IOException {
    Map<String, String> site = new LinkedHashMap<>();
    site.put("yarn.scheduler.capacity.root.queues", "default");
    site.put("yarn.scheduler.capacity.root.default.capacity", "100");
    site.put("yarn.scheduler.capacity.root.default.maximum-capacity", "100");
    site.putAll(capacityScheduler);
    HadoopConfFile.write(Files.createDirectories(confDir).resolve("capacity-scheduler.xml"), site);
    return confDir;
  }

  /** The cluster's yarn-site.xml with one node's address and its own directories. */
  private static void writeNodeSite(Path yarnSite, Path nodeSite, String node, Path nodeDir) throws IOException {
    Configuration site = new Configuration(false);
    site.addResource(new org.apache.hadoop.fs.Path(yarnSite.toUri()));
    site.set("yarn.nodemanager.address", node + ":0");
    site.set("yarn.nodemanager.hostname", node);
    site.set("yarn.nodemanager.local-dirs", nodeDir.resolve("local").toString());
    site.set("yarn.nodemanager.log-dirs", nodeDir.resolve("logs").toString());
    site.set("hadoop.tmp.dir", nodeDir.resolve("tmp").toString());
    try (OutputStream out = Files.newOutputStream(nodeSite)) {
      site.writeXml(out);
    }
    // the shuffle handler's configuration loads mapred-default.xml (port 13562) after yarn-site.xml:
    // only mapred-site.xml gives every NodeManager of the machine a port of its own
    HadoopConfFile.write(nodeSite.resolveSibling("mapred-site.xml"), Map.of("mapreduce.shuffle.port", "0"));
  }

  /** This machine's first non-loopback IPv4 address, for a single NodeManager that registers under a name Hive keeps as a split location. */
  public static String siteLocalAddress() throws SocketException {
    for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (network.isUp() && !network.isLoopback()) {
        for (InetAddress address : Collections.list(network.getInetAddresses())) {
          if (address instanceof Inet4Address) {
            return address.getHostAddress();
          }
        }
      }
    }
    throw new SocketException("No non-loopback IPv4 address on this machine for the NodeManager to register as");
  }

  /** The NodeManager processes, in the order of their addresses: their descendants are the containers they launched. */
  public List<ProcessHandle> nodeManagers() {
    return nodeManagerProcesses.stream().map(Process::toHandle).toList();
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

  /** Polls the REST API (what RubiX's yarn cluster manager reads) until every NodeManager is RUNNING under its address. */
  private void awaitRunningNodes(List<String> nodes, long deadline, Path dir) throws IOException {
    while (!Set.copyOf(runningNodes()).containsAll(nodes)) {
      Process exited = nodeManagerProcesses.stream().filter(process -> !process.isAlive()).findFirst().orElse(null);
      if (System.nanoTime() > deadline || exited != null) {
        throw new IOException("NodeManagers " + nodes + " not all RUNNING at " + resourceManager + " (" + runningNodes() + "); see the logs in " + dir);
      }
      try {
        nodeManagerProcesses.get(0).waitFor(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted waiting for the NodeManagers", e);
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
    nodeManagerProcesses.forEach(MiniYarnProcess::stop);
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
