package io.rubix.spark.sql;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.FileScanRDD;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * The pieces of a {@link FileScanRDD} regrouped into other tasks: each task reads its pieces with the
 * scan's own reader ({@code FileScanRDD.compute} reads whatever pieces its partition names), so rows,
 * input metrics and error handling are the scan's; only which pieces run together, and so where,
 * changes.
 */
final class OwnerPackedRDD extends RDD<InternalRow> {
  private static final long serialVersionUID = 1L;

  private final FileScanRDD scan;
  // like FileScanRDD's own partitions: needed on the driver only, not shipped with every task
  private final transient FilePartition[] tasks;
  private final transient Map<String, List<String>> executorHosts;
  private final transient Supplier<Set<String>> liveNodes;

  /**
   * {@code executorHosts}: the executors' hosts of each node whose executors have other addresses
   * ({@link ExecutorHosts}); {@code liveNodes}: the cluster's nodes now (empty: unknown), asked each time
   * a stage is placed.
   */
  OwnerPackedRDD(FileScanRDD scan, List<FilePartition> tasks, Map<String, List<String>> executorHosts, Supplier<Set<String>> liveNodes) {
    super(scan.context(), CollectionConverters.asScala(List.<org.apache.spark.Dependency<?>>of()).toList(),
        ClassTag$.MODULE$.apply(InternalRow.class));
    this.scan = scan;
    this.tasks = tasks.toArray(FilePartition[]::new);
    this.executorHosts = Map.copyOf(executorHosts);
    this.liveNodes = liveNodes;
  }

  @Override
  public Iterator<InternalRow> compute(Partition split, TaskContext context) {
    return scan.compute(split, context);
  }

  @Override
  public Partition[] getPartitions() {
    return Arrays.copyOf(tasks, tasks.length, Partition[].class);
  }

  /**
   * The task's owner hosts still in the cluster (a task whose owner left runs anywhere at once, not after
   * Spark's locality wait), each as the hosts of the executors on that node where those differ.
   */
  @Override
  public Seq<String> getPreferredLocations(Partition split) {
    Set<String> live = liveNodes.get();
    Set<String> hosts = new LinkedHashSet<>();
    for (String host : ((FilePartition) split).preferredLocations()) {
      if (live.isEmpty() || live.contains(host)) {
        hosts.addAll(executorHosts.getOrDefault(host, List.of(host)));
      }
    }
    return CollectionConverters.asScala(List.copyOf(hosts)).toList();
  }
}
