package io.rubix.hive.testing;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.service.Service;

/**
 * The ResourceManager of a YARN cluster on this machine: Hadoop's {@code MiniYARNCluster} with no
 * NodeManager of its own (in one JVM the NodeManagers' web apps would take over the
 * ResourceManager's REST API: Guice's servlet filter is a JVM-wide singleton), configured for Tez as
 * Tez's {@code MiniTezCluster} does, with ephemeral ports. The NodeManager settings all nodes share
 * (the MapReduce shuffle handler as auxiliary service, no memory checks, the containers' classpath)
 * go into the yarn-site.xml it writes, for the NodeManager processes {@link MiniYarnProcess} starts
 * next with their own addresses and directories.
 * Arguments: the work directory, the yarn-site.xml to write, a file holding the containers'
 * classpath ({@code yarn.application.classpath}). Prints {@code MINIYARN_STARTED <ResourceManager
 * web address>} once the ResourceManager runs, then runs until stdin closes.
 */
public final class MiniYarnMain {
  public static final String STARTED = "MINIYARN_STARTED ";

  private MiniYarnMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    Path work = Path.of(args[0]);
    Path yarnSite = Path.of(args[1]);
    String containerClasspath = Files.readString(Path.of(args[2])).trim();

    Configuration conf = new Configuration();
    conf.set("yarn.nodemanager.aux-services", "mapreduce_shuffle");
    conf.set("yarn.nodemanager.aux-services.mapreduce_shuffle.class", "org.apache.hadoop.mapred.ShuffleHandler");
    conf.setInt("mapreduce.shuffle.port", 0);
    conf.set("yarn.nodemanager.bind-host", "0.0.0.0");
    conf.set("yarn.nodemanager.webapp.address", "0.0.0.0:0");
    conf.set("yarn.nodemanager.localizer.address", "0.0.0.0:0");
    conf.set("yarn.nodemanager.collector-service.address", "0.0.0.0:0");
    conf.set("yarn.nodemanager.amrmproxy.address", "0.0.0.0:0");
    conf.setBoolean("yarn.nodemanager.pmem-check-enabled", false);
    conf.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
    conf.setInt("yarn.nodemanager.resource.memory-mb", 4096);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 8);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    conf.setInt("yarn.nodemanager.delete.debug-delay-sec", 600);
    conf.setFloat("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 99.0f);
    conf.set("yarn.application.classpath", containerClasspath);
    System.setProperty("test.build.data", work.toString());
    System.setProperty("hadoop.tmp.dir", work.resolve("tmp").toString());

    // hadoop-yarn-server-tests is a test jar of Hadoop's and only on the child's classpath
    Service cluster = (Service) Class.forName("org.apache.hadoop.yarn.server.MiniYARNCluster")
        .getConstructor(String.class, int.class, int.class, int.class)
        .newInstance("rubix-hive-tez", 0, 1, 1);
    cluster.init(conf);
    cluster.start();
    Configuration started = new Configuration(cluster.getConfig());
    Service resourceManager = (Service) cluster.getClass().getMethod("getResourceManager").invoke(cluster);
    started.set("yarn.resourcemanager.webapp.address", resourceManager.getConfig().get("yarn.resourcemanager.webapp.address"));
    try (OutputStream file = Files.newOutputStream(yarnSite)) {
      started.writeXml(file);
    }
    out.println(STARTED + "http://" + started.get("yarn.resourcemanager.webapp.address"));
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      while (in.readLine() != null) {
        // runs until the test closes stdin
      }
    }
    cluster.stop();
    System.exit(0);
  }
}
