package io.rubix.benchmarks;

import io.rubix.benchmarks.TableSets.DataFile;
import io.rubix.benchmarks.TableSets.TableSet;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.Rendezvous;
import io.rubix.hadoop.CachingLocalFileSystem;
import io.rubix.hadoop.HasClusterLocality;
import io.rubix.spi.cluster.ClusterNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What planning a whole table costs an engine's planner at {@code nodes} cache nodes: the block
 * locations of every file of the 10,000-file table of {@link TableSets#skewedTable} (sizes 8 MiB - 1 GiB,
 * 1.19 TiB, 11,853 splits of 256 MiB), as Spark's file index and Hive's split computation ask for them, one
 * {@code getFileBlockLocations(status, 0, length)} per file.
 *
 * <p>{@code planTable} goes through the real code path: a {@link CachingLocalFileSystem} (the same
 * block-location code as the S3A one; paths are {@code file:/lake/...} of the same length as their
 * {@code s3a://} form) with {@code rubix.cluster.manager=static} listing {@code nodes} nodes, this JVM
 * not among them (a coordinator), {@code rubix.cluster.preferred.hosts} = {@code preferredHosts}.
 * No daemon, no I/O: only the statuses are given. {@code ownersOnly} asks the same file system's
 * {@link ClusterLocality} for the owners of the same splits (the path hashed once per file), without
 * Hadoop's path and {@code BlockLocation} objects.
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class TablePlanningBenchmark {
  @Param({"100", "1000", "10000"})
  public int nodes;

  @Param({"1", "3"})
  public int preferredHosts;

  private Path cacheDir;
  private FileSystem fs;
  private FileStatus[] statuses;
  private long splitSize;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    cacheDir = BenchFiles.newScratchDir("rubix-planning-");
    List<ClusterNode> list = SimulatedNodes.list(nodes);
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", list.stream().map(n -> n.id() + "=" + n.host()).collect(Collectors.joining(",")));
    conf.set("rubix.cluster.node.id", "coordinator");
    conf.setInt("rubix.cluster.preferred.hosts", preferredHosts);
    conf.set("rubix.network.transfer.enabled", "false");
    fs = FileSystem.newInstance(URI.create("file:///"), conf);
    TableSet table = TableSets.skewedTable("file:/lake/warehouse", 20261126L);
    statuses = new FileStatus[table.files().size()];
    for (int i = 0; i < statuses.length; i++) {
      DataFile file = table.files().get(i);
      statuses[i] = new FileStatus(file.length(), false, 1, 32 * TableSets.MIB, 1_764_000_000_000L, new org.apache.hadoop.fs.Path(file.path()));
    }
    splitSize = ((HasClusterLocality) fs).clusterLocality().splitSize();
    BlockLocation[] first = fs.getFileBlockLocations(statuses[0], 0, statuses[0].getLen());
    if (first.length == 0 || first[0].getHosts().length != preferredHosts || !first[0].getHosts()[0].startsWith("ip-10-0-")) {
      throw new IllegalStateException("Block locations do not come from the cache cluster: " + List.of(first));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    fs.close();
    BenchFiles.deleteRecursively(cacheDir);
  }

  @Benchmark
  public long planTable() throws IOException {
    long locations = 0;
    for (FileStatus status : statuses) {
      locations += fs.getFileBlockLocations(status, 0, status.getLen()).length;
    }
    return locations;
  }

  @Benchmark
  public long ownersOnly() {
    ClusterLocality locality = ((HasClusterLocality) fs).clusterLocality();
    long owners = 0;
    for (FileStatus status : statuses) {
      long pathHash = Rendezvous.pathHash(status.getPath().toString());
      for (long split = 0; split * splitSize < status.getLen(); split++) {
        owners += locality.owners(pathHash, split).size();
      }
    }
    return owners;
  }
}
