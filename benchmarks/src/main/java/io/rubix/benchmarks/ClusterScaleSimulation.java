package io.rubix.benchmarks;

import io.rubix.benchmarks.TableSets.DataFile;
import io.rubix.benchmarks.TableSets.TableSet;
import io.rubix.core.cluster.Rendezvous;
import io.rubix.spi.cluster.ClusterNode;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * How split ownership behaves at 100, 1,000 and 10,000 cache nodes, for two realistic table sets
 * ({@link TableSets}): how evenly the splits and their bytes spread over the nodes, and how many move
 * when one node joins or leaves, against the least possible (1/(n+1) and 1/n).
 *
 * <p>Files are cut into splits of {@code rubix.cache.filesplit.size} (256 MiB unless {@code --split-mb})
 * and each split's owner is found with the real {@link Rendezvous} over the nodes, exactly as
 * {@code ClusterLocality} finds it over a view's live nodes (same keys, same hash; the order of the
 * nodes does not matter). A join adds a node that was never listed; a leave removes one listed node,
 * {@code --trials} times each (different nodes), and the table gives the mean. Every move is checked:
 * on a join a split may only move to the new node, on a leave only off the leaving one; any other move
 * is counted in the last column and in {@code stray_moves}.
 *
 * <p>Not a JMH benchmark: it measures shares, not time (the one time it prints, a single-threaded pass
 * over all splits, is a rough guide; {@code SplitOwnerBenchmark} and {@code TablePlanningBenchmark}
 * measure lookups). Prints Markdown tables, then one line of {@code key=value} pairs. Run:
 * {@code java -cp benchmarks/target/benchmarks.jar io.rubix.benchmarks.ClusterScaleSimulation
 * [--nodes 100,1000,10000] [--trials 32] [--seed N] [--split-mb 256]}.
 */
public final class ClusterScaleSimulation {
  static final String ROOT = "s3a://lake/warehouse";

  private ClusterScaleSimulation() {}

  /** The (path, split) keys of a table set's splits, with each split's length. */
  record Splits(String name, int files, long[] keys, long[] bytes) {
    static Splits cut(TableSet set, long splitSize) {
      int count = 0;
      for (DataFile file : set.files()) {
        count += (int) ((file.length() + splitSize - 1) / splitSize);
      }
      long[] keys = new long[count];
      long[] bytes = new long[count];
      int i = 0;
      for (DataFile file : set.files()) {
        long pathHash = Rendezvous.pathHash(file.path());
        for (long split = 0; split * splitSize < file.length(); split++) {
          keys[i] = Rendezvous.key(pathHash, split);
          bytes[i] = Math.min(splitSize, file.length() - split * splitSize);
          i++;
        }
      }
      return new Splits(set.name(), set.files().size(), keys, bytes);
    }

    int count() {
      return keys.length;
    }

    long totalBytes() {
      return Arrays.stream(bytes).sum();
    }
  }

  /** Balance of one assignment: the largest node's share against the mean, in splits and in bytes. */
  record Balance(double maxMeanSplits, double maxMeanBytes, int idleNodes) {}

  /**
   * Means over the trials of the shares of splits and bytes that changed owner; {@code strayMoves}
   * counts moves a join or leave should not cause (to or from a node other than the one that changed).
   */
  record Movement(double splitShare, double byteShare, long strayMoves) {}

  /**
   * @param random the balance of the same splits placed uniformly at random (seeded): what any hash
   *     that spreads keys well can do; the gap to {@code balance} is the hash's, the rest the splits'
   */
  record Result(int nodes, Balance balance, Balance random, double ownerPassMillis, Movement join, Movement leave) {}

  public static void main(String[] args) {
    int[] nodeCounts = {100, 1_000, 10_000};
    int trials = 32;
    long seed = 20261126L;
    long splitSize = 256 * TableSets.MIB;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--nodes" -> nodeCounts = Arrays.stream(args[++i].split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--split-mb" -> splitSize = Long.parseLong(args[++i]) * TableSets.MIB;
        default -> throw new IllegalArgumentException("Unknown argument " + args[i] + "; allowed: --nodes N,N,..., --trials N, --seed N, --split-mb N");
      }
    }
    List<TableSet> sets = List.of(TableSets.skewedTable(ROOT, seed), TableSets.tpcdsLike(ROOT, seed + 1));
    System.out.printf(Locale.ROOT, "Cluster scale simulation: seed %d, splits of %d MiB, %d join and %d leave trials per node count;"
        + " %d processors, load average %.1f, Java %s%n%n", seed, splitSize / TableSets.MIB, trials, trials,
        Runtime.getRuntime().availableProcessors(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        System.getProperty("java.version"));
    StringJoiner keyValues = new StringJoiner(" ");
    long strayMoves = 0;
    System.out.println("| table set | files | TiB | splits | nodes | splits per node | max/mean splits | max/mean bytes"
        + " | max/mean bytes, random placement | idle nodes | owners of all splits, ms | join: splits moved (x 1/(n+1)) | join: bytes moved (x 1/(n+1))"
        + " | leave: splits moved (x 1/n) | leave: bytes moved (x 1/n) | stray moves |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (TableSet set : sets) {
      Splits splits = Splits.cut(set, splitSize);
      String key = set.name().startsWith("TPC-DS") ? "tpcds" : "skewed";
      for (int n : nodeCounts) {
        Result r = simulate(splits, n, trials);
        double joinIdeal = 1.0 / (n + 1);
        double leaveIdeal = 1.0 / n;
        System.out.printf(Locale.ROOT, "| %s | %,d | %.2f | %,d | %,d | %.1f | %.2f | %.2f | %.2f | %,d | %,.0f | %s | %s | %s | %s | %d |%n", set.name(),
            splits.files(), splits.totalBytes() / (double) (1L << 40), splits.count(), n, splits.count() / (double) n, r.balance().maxMeanSplits(),
            r.balance().maxMeanBytes(), r.random().maxMeanBytes(), r.balance().idleNodes(), r.ownerPassMillis(), share(r.join().splitShare(), joinIdeal),
            share(r.join().byteShare(), joinIdeal), share(r.leave().splitShare(), leaveIdeal), share(r.leave().byteShare(), leaveIdeal),
            r.join().strayMoves() + r.leave().strayMoves());
        String prefix = key + "_n" + n + "_";
        keyValues.add(prefix + "max_mean_splits=" + format(r.balance().maxMeanSplits()));
        keyValues.add(prefix + "max_mean_bytes=" + format(r.balance().maxMeanBytes()));
        keyValues.add(prefix + "max_mean_bytes_random=" + format(r.random().maxMeanBytes()));
        keyValues.add(prefix + "join_splits_x_ideal=" + format(r.join().splitShare() / joinIdeal));
        keyValues.add(prefix + "join_bytes_x_ideal=" + format(r.join().byteShare() / joinIdeal));
        keyValues.add(prefix + "leave_splits_x_ideal=" + format(r.leave().splitShare() / leaveIdeal));
        keyValues.add(prefix + "leave_bytes_x_ideal=" + format(r.leave().byteShare() / leaveIdeal));
        strayMoves += r.join().strayMoves() + r.leave().strayMoves();
      }
    }
    System.out.println();
    System.out.println("Balance by split size (rubix.cache.filesplit.size): max/mean bytes per node");
    System.out.println();
    long[] splitSizes = {256 * TableSets.MIB, 128 * TableSets.MIB, 64 * TableSets.MIB};
    StringBuilder header = new StringBuilder("| table set | nodes |");
    StringBuilder rule = new StringBuilder("|---|---:|");
    for (long size : splitSizes) {
      header.append(" ").append(size / TableSets.MIB).append(" MiB: splits per node, max/mean bytes |");
      rule.append("---:|");
    }
    System.out.println(header);
    System.out.println(rule);
    for (TableSet set : sets) {
      List<Splits> cuts = new ArrayList<>();
      for (long size : splitSizes) {
        cuts.add(Splits.cut(set, size));
      }
      for (int n : nodeCounts) {
        Rendezvous ring = new Rendezvous(SimulatedNodes.list(n));
        StringBuilder row = new StringBuilder("| " + set.name() + " | " + String.format(Locale.ROOT, "%,d", n) + " |");
        for (Splits cut : cuts) {
          Balance balance = balance(cut, owners(ring, cut), n);
          row.append(String.format(Locale.ROOT, " %.1f, %.2f |", cut.count() / (double) n, balance.maxMeanBytes()));
        }
        System.out.println(row);
      }
    }
    System.out.println();
    keyValues.add("stray_moves=" + strayMoves);
    System.out.println(keyValues);
  }

  /** Owners of {@code splits} over {@code n} nodes, then {@code trials} joins and {@code trials} leaves. */
  static Result simulate(Splits splits, int n, int trials) {
    List<ClusterNode> nodes = SimulatedNodes.list(n);
    Rendezvous ring = new Rendezvous(nodes);
    long start = System.nanoTime();
    int[] owners = owners(ring, splits);
    double ownerPassMillis = (System.nanoTime() - start) / 1e6;
    Balance balance = balance(splits, owners, n);
    SplittableRandom random = new SplittableRandom(n);
    Balance randomBalance = balance(splits, random.ints(splits.count(), 0, n).toArray(), n);
    long joinSplits = 0;
    long joinBytes = 0;
    long joinStray = 0;
    long leaveSplits = 0;
    long leaveBytes = 0;
    long leaveStray = 0;
    for (int t = 0; t < trials; t++) {
      List<ClusterNode> joined = new ArrayList<>(nodes);
      joined.add(SimulatedNodes.newcomer(t));
      Rendezvous after = new Rendezvous(joined);
      for (int i = 0; i < splits.count(); i++) {
        ClusterNode owner = after.node(after.owner(splits.keys()[i]));
        if (!owner.equals(ring.node(owners[i]))) {
          joinSplits++;
          joinBytes += splits.bytes()[i];
          if (!owner.equals(SimulatedNodes.newcomer(t))) {
            joinStray++;
          }
        }
      }
      int leaving = (int) ((t * (long) n) / trials + n / (2L * trials));
      List<ClusterNode> left = new ArrayList<>(nodes);
      left.remove(leaving);
      after = new Rendezvous(left);
      for (int i = 0; i < splits.count(); i++) {
        ClusterNode owner = after.node(after.owner(splits.keys()[i]));
        if (!owner.equals(ring.node(owners[i]))) {
          leaveSplits++;
          leaveBytes += splits.bytes()[i];
          if (owners[i] != leaving) {
            leaveStray++;
          }
        }
      }
    }
    double runs = Math.max(1, trials);
    double count = splits.count() * runs;
    double bytes = splits.totalBytes() * runs;
    return new Result(n, balance, randomBalance, ownerPassMillis, new Movement(joinSplits / count, joinBytes / bytes, joinStray),
        new Movement(leaveSplits / count, leaveBytes / bytes, leaveStray));
  }

  /** The index, in {@code ring}, of the owner of each split. */
  static int[] owners(Rendezvous ring, Splits splits) {
    int[] owners = new int[splits.count()];
    for (int i = 0; i < owners.length; i++) {
      owners[i] = ring.owner(splits.keys()[i]);
    }
    return owners;
  }

  static Balance balance(Splits splits, int[] owners, int n) {
    long[] bytes = new long[n];
    int[] counts = new int[n];
    for (int i = 0; i < owners.length; i++) {
      bytes[owners[i]] += splits.bytes()[i];
      counts[owners[i]]++;
    }
    int idle = (int) Arrays.stream(counts).filter(c -> c == 0).count();
    double meanSplits = splits.count() / (double) n;
    double meanBytes = splits.totalBytes() / (double) n;
    return new Balance(Arrays.stream(counts).max().orElse(0) / meanSplits, Arrays.stream(bytes).max().orElse(0) / meanBytes, idle);
  }

  private static String share(double share, double ideal) {
    return String.format(Locale.ROOT, "%.3f%% (%.2fx)", 100 * share, share / ideal);
  }

  private static String format(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }
}
