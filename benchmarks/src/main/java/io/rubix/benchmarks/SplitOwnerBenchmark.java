package io.rubix.benchmarks;

import io.rubix.core.cluster.Rendezvous;
import io.rubix.spi.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of finding a split's owner by rendezvous hashing over {@code nodes} cache nodes:
 * {@code owner} hashes the path and the split index and scans the nodes (what a block-admission check
 * costs); {@code ownerOfHashedPath} reuses the path hash (what each further split of a
 * getFileBlockLocations call costs); {@code top3} finds the three preferred hosts.
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class SplitOwnerBenchmark {
  private static final int PATHS = 1024;

  @Param({"3", "20", "100", "200", "1000", "10000"})
  public int nodes;

  private Rendezvous rendezvous;
  private String[] paths;
  private long[] pathHashes;
  private final int[] top = new int[3];
  private int next;

  @Setup
  public void setUp() {
    List<ClusterNode> list = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      list.add(new ClusterNode("worker-" + i, "ip-10-0-0-" + i + ".ec2.internal", 8899));
    }
    rendezvous = new Rendezvous(list);
    paths = new String[PATHS];
    pathHashes = new long[PATHS];
    for (int i = 0; i < PATHS; i++) {
      paths[i] = "s3a://warehouse/tpcds/store_sales/ss_sold_date_sk=" + (2450000 + i) + "/part-00000-" + i + ".c000.snappy.orc";
      pathHashes[i] = Rendezvous.pathHash(paths[i]);
    }
  }

  @Benchmark
  public int owner() {
    int i = next++ & (PATHS - 1);
    return rendezvous.owner(Rendezvous.key(Rendezvous.pathHash(paths[i]), i & 7));
  }

  @Benchmark
  public int ownerOfHashedPath() {
    int i = next++ & (PATHS - 1);
    return rendezvous.owner(Rendezvous.key(pathHashes[i], i & 7));
  }

  @Benchmark
  public int top3() {
    int i = next++ & (PATHS - 1);
    rendezvous.top(Rendezvous.key(pathHashes[i], i & 7), top);
    return top[0] + top[1] + top[2];
  }
}
