package io.rubix.benchmarks;

import io.rubix.core.cluster.NodeList;
import io.rubix.core.cluster.Rendezvous;
import io.rubix.spi.cluster.ClusterNode;
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
 * What a change of the node list costs each JVM at {@code nodes} cache nodes: {@code parse} reads a
 * list as {@code rubix.cluster.nodes} or a {@code rubix.cluster.nodes.file} holds it (once when a file
 * system starts, again whenever the file changes); {@code ring} hashes the live nodes for
 * {@link Rendezvous} (whenever the view or the set of down nodes changes).
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class ClusterViewBenchmark {
  @Param({"100", "1000", "10000"})
  public int nodes;

  private String text;
  private List<ClusterNode> list;

  @Setup
  public void setUp() {
    list = SimulatedNodes.list(nodes);
    StringBuilder builder = new StringBuilder();
    for (ClusterNode node : list) {
      builder.append(node.id()).append('=').append(node.host()).append(':').append(node.port()).append('\n');
    }
    text = builder.toString();
  }

  @Benchmark
  public List<ClusterNode> parse() {
    return NodeList.parse(text, 8899, "benchmark");
  }

  @Benchmark
  public Rendezvous ring() {
    return new Rendezvous(list);
  }
}
