package io.rubix.spark.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.FilePartition$;
import org.apache.spark.sql.execution.datasources.FileScanRDD;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/** The input of a file scan, its pieces regrouped by {@link OwnerPacking}. */
final class ScanPacking {
  private static final Logger LOG = LoggerFactory.getLogger(ScanPacking.class);

  private ScanPacking() {}

  /**
   * {@code input} (the scan's own RDD) with its pieces packed by owner, each task preferring its owner's
   * executors ({@link ExecutorHosts}); {@code input} itself for a bucketed scan (its tasks are its
   * buckets), a scan whose pieces name fewer than two hosts (unless executors have other addresses than
   * their nodes), or when the packing would pass the user's {@code spark.sql.files.maxPartitionNum}.
   */
  static RDD<InternalRow> pack(FileSourceScanExec node, RDD<InternalRow> input) {
    if (node.bucketedScan() || !(input instanceof FileScanRDD scan)) {
      return input;
    }
    SparkSession session = node.relation().sparkSession();
    Configuration conf = session.sparkContext().hadoopConfiguration();
    Map<String, List<String>> executorHosts = ExecutorHosts.parse(conf.get(ExecutorHosts.KEY));
    LiveNodes live = new LiveNodes(conf);
    Set<String> nodes = live.current();
    List<PartitionedFile> pieces = new ArrayList<>();
    CollectionConverters.asJava(scan.filePartitions()).forEach(p -> pieces.addAll(List.of(p.files())));
    // a listing made before a node left still names it: its pieces go to any host at once, not after Spark's locality wait
    Function<PartitionedFile, String> host = piece -> nodes.isEmpty() || nodes.contains(host(piece)) ? host(piece) : "";
    boolean stale = pieces.stream().anyMatch(piece -> !host(piece).equals(host.apply(piece)));
    if (OwnerPacking.hosts(pieces, host) < 2 && executorHosts.isEmpty() && !stale) {
      return input;
    }
    long maxSplitBytes = FilePartition$.MODULE$.maxSplitBytes(session, node.dynamicallySelectedPartitions());
    long openCost = session.sessionState().conf().filesOpenCostInBytes();
    List<List<PartitionedFile>> groups = OwnerPacking.pack(pieces, host, PartitionedFile::length,
        maxSplitBytes, openCost);
    Option<Object> maxTasks = session.sessionState().conf().filesMaxPartitionNum();
    if (maxTasks.isDefined() && groups.size() > (Integer) maxTasks.get()) {
      return input;
    }
    List<FilePartition> tasks = new ArrayList<>(groups.size());
    for (List<PartitionedFile> group : groups) {
      tasks.add(new FilePartition(tasks.size(), group.toArray(PartitionedFile[]::new)));
    }
    LOG.debug("{} pieces of {} packed by owner into {} tasks (by size: {})", pieces.size(),
        node.relation().location().rootPaths(), tasks.size(), scan.filePartitions().size());
    return new OwnerPackedRDD(scan, tasks, executorHosts, live::current);
  }

  /** The piece's first host, as Spark's scheduler weighs them ("localhost" is none, as for Spark). */
  static String host(PartitionedFile piece) {
    String[] hosts = piece.locations();
    return hosts.length == 0 || "localhost".equals(hosts[0]) ? "" : hosts[0];
  }
}
