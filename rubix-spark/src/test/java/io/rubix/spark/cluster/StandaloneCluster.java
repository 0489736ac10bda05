package io.rubix.spark.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * A Spark standalone cluster on this machine from Spark's own jars: a Master on 127.0.0.1 and Workers
 * on 127.0.0.2, 127.0.0.3, ... (one core each), real processes. Nodes can be killed and added while an
 * application runs.
 */
public final class StandaloneCluster implements AutoCloseable {
  private static final Pattern MASTER_URL = Pattern.compile("spark://127\\.0\\.0\\.1:\\d+");

  private final SparkHome home;
  private final Path dir;
  private final Process master;
  private final String masterUrl;
  private final List<SparkNode> nodes = Collections.synchronizedList(new ArrayList<>());
  private int nextAddress = 2;

  private StandaloneCluster(SparkHome home, Path dir, Process master, String masterUrl) {
    this.home = home;
    this.dir = dir;
    this.master = master;
    this.masterUrl = masterUrl;
  }

  /** Starts a Master and {@code workers} Workers; {@code rubixJar} goes into the installation's {@code jars/}. */
  public static StandaloneCluster start(Path dir, Path rubixJar, int workers) throws IOException {
    SparkHome home = SparkHome.create(dir.resolve("spark-home"), rubixJar);
    Path log = dir.resolve("master.log");
    List<String> command = new ArrayList<>(JavaCommand.java(home, jvmOptions(), "512m"));
    command.addAll(List.of("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", "0", "--webui-port", "0"));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("SPARK_HOME", home.dir().toString());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process master = builder.start();
    StandaloneCluster cluster = null;
    try {
      String url = JavaCommand.awaitMatch(master, log, MASTER_URL).group();
      cluster = new StandaloneCluster(home, dir, master, url);
      for (int i = 0; i < workers; i++) {
        cluster.addNode();
      }
      return cluster;
    } catch (IOException | RuntimeException e) {
      if (cluster != null) {
        cluster.close();
      } else {
        master.destroyForcibly();
      }
      throw e;
    }
  }

  /** Starts a Worker on the next free address and returns that address. */
  public String addNode() throws IOException {
    String address;
    synchronized (this) {
      address = "127.0.0." + nextAddress++;
    }
    Path nodeDir = Files.createDirectories(dir.resolve("node-" + address));
    nodes.add(SparkNode.start(home, address, masterUrl, jvmOptions(), nodeDir));
    return address;
  }

  /** Kills the Worker of {@code address} and its executors (kill -9); the node is no longer one of {@link #addresses()}. */
  public void kill(String address) {
    synchronized (nodes) {
      for (SparkNode node : nodes) {
        if (node.address().equals(address)) {
          node.kill();
        }
      }
      nodes.removeIf(node -> node.address().equals(address));
    }
  }

  public String masterUrl() {
    return masterUrl;
  }

  /** The addresses of the nodes running (started and not killed), in the order they were started. */
  public List<String> addresses() {
    synchronized (nodes) {
      return nodes.stream().map(SparkNode::address).toList();
    }
  }

  /** The JVM flags Spark needs on this JDK (its launcher adds them to executors itself). */
  private static List<String> jvmOptions() {
    return List.of(JavaModuleOptions.defaultModuleOptionArray());
  }

  @Override
  public void close() {
    synchronized (nodes) {
      nodes.forEach(SparkNode::close);
    }
    master.destroyForcibly();
  }
}
