package io.rubix.spark;

import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * RubiX for Spark clusters without a BookKeeper service: {@code spark.plugins=io.rubix.spark.RubixPlugin}.
 *
 * <p>Each executor JVM makes sure a BookKeeper answers on its node: it connects to the node's daemon
 * when one answers on {@code rubix.network.bookkeeper.host:port}, and otherwise starts one embedded
 * in the executor (loopback only). The driver switches the session's caching file systems to that
 * BookKeeper ({@code rubix.cluster.embedded.mode=false}) unless the user set the mode, and publishes
 * the hosts of the executors that registered (see {@link RubixDriverPlugin}).
 *
 * <p>Every setting is a Hadoop key passed as {@code spark.hadoop.<key>}; the plugin adds
 * {@code spark.rubix.nodes.file} (optional): a file with one executor host per line, kept by the driver and
 * copied by every executor to its node, which then is the session's cluster ({@code rubix.cluster.manager=file}).
 */
public final class RubixPlugin implements SparkPlugin {
  @Override
  public DriverPlugin driverPlugin() {
    return new RubixDriverPlugin();
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new RubixExecutorPlugin();
  }
}
