package io.rubix.spark.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One node of a standalone cluster on this machine: a Spark Worker bound to a loopback address of its
 * own (127.0.0.N), which launches the application's executor on that address; {@value #NODE_ENV} in its
 * environment names the node to the executor's settings ({@code ${env.RUBIX_NODE}} in Hadoop keys).
 */
final class SparkNode implements AutoCloseable {
  static final String NODE_ENV = "RUBIX_NODE";

  private final String address;
  private final Process worker;
  private final Path log;

  private SparkNode(String address, Process worker, Path log) {
    this.address = address;
    this.worker = worker;
    this.log = log;
  }

  static SparkNode start(SparkHome home, String address, String masterUrl, List<String> jvmOptions, Path dir) throws IOException {
    Path work = Files.createDirectories(dir.resolve("work"));
    Path log = dir.resolve("worker.log");
    List<String> command = new java.util.ArrayList<>(JavaCommand.java(home, jvmOptions, "512m"));
    command.addAll(List.of("org.apache.spark.deploy.worker.Worker", "--host", address, "--port", "0", "--webui-port", "0",
        "--cores", "1", "--memory", "1536m", "--work-dir", work.toString(), masterUrl));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.put("SPARK_HOME", home.dir().toString());
    env.put("SPARK_SCALA_VERSION", "2.13");
    env.put("SPARK_LOCAL_IP", address);
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put(NODE_ENV, address);
    SparkNode node = new SparkNode(address, builder.start(), log);
    JavaCommand.awaitLine(node.worker, log, "Successfully registered with master");
    return node;
  }

  String address() {
    return address;
  }

  Path log() {
    return log;
  }

  /** Kills the worker and its executors at once, as a lost machine would. */
  void kill() {
    worker.descendants().forEach(ProcessHandle::destroyForcibly);
    worker.destroyForcibly();
  }

  @Override
  public void close() {
    kill();
    try {
      worker.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
