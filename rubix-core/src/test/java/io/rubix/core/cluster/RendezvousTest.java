package io.rubix.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.spi.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Property tests of split ownership: balance and minimal movement over 10^5 (path, split) keys.
 *
 * <p>Balance bound: with K keys over n nodes a perfect random assignment gives each node a binomial
 * count, mean {@code mu = K/n}, deviation {@code sigma = sqrt(mu (1 - 1/n))}; the largest of n such
 * counts is near {@code mu + sigma sqrt(2 ln n)}, which for K = 10^5 is 1.095 mu at n = 100 and
 * 1.12 mu at n = 200. So the test asks max/mean <= 1.1 where that is statistically sound
 * ({@code 4.5 sigma <= 0.1 mu}, n up to about 50) and {@code max <= mu + 4.5 sigma} beyond (a perfect
 * hash fails that with probability below 10^-3).
 */
class RendezvousTest {
  private static final int FILES = 10_000;
  private static final int SPLITS = 10;
  private static final int KEYS = FILES * SPLITS;

  private static long[] keys() {
    long[] keys = new long[KEYS];
    int k = 0;
    for (int f = 0; f < FILES; f++) {
      long pathHash = Rendezvous.pathHash("s3a://warehouse/tpcds/store_sales/ss_sold_date_sk=" + (2450000 + f / 20) + "/part-" + f + ".orc");
      for (int s = 0; s < SPLITS; s++) {
        keys[k++] = Rendezvous.key(pathHash, s);
      }
    }
    return keys;
  }

  private static List<ClusterNode> nodes(int n) {
    List<ClusterNode> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(new ClusterNode("worker-" + i, "ip-10-0-" + (i / 250) + "-" + (i % 250) + ".ec2.internal", 8899));
    }
    return nodes;
  }

  private static String[] owners(Rendezvous rendezvous, long[] keys) {
    String[] owners = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      owners[i] = rendezvous.node(rendezvous.owner(keys[i])).id();
    }
    return owners;
  }

  @Test
  void keysAreBalancedOverThreeToTwoHundredNodes() {
    long[] keys = keys();
    StringBuilder report = new StringBuilder("balance (10^5 keys): n, max/mean, bound\n");
    for (int n : new int[] {3, 5, 10, 20, 50, 100, 150, 200}) {
      Rendezvous rendezvous = new Rendezvous(nodes(n));
      int[] counts = new int[n];
      for (long key : keys) {
        counts[rendezvous.owner(key)]++;
      }
      double mean = (double) KEYS / n;
      double sigma = Math.sqrt(mean * (1 - 1.0 / n));
      int max = java.util.Arrays.stream(counts).max().orElseThrow();
      double bound = mean + Math.max(0.1 * mean, 4.5 * sigma);
      report.append(String.format("%d, %.4f, %.4f%n", n, max / mean, bound / mean));
      assertThat((double) max).as("largest share of %d nodes (mean %.1f, sigma %.1f)", n, mean, sigma).isLessThanOrEqualTo(bound);
      assertThat(java.util.Arrays.stream(counts).min().orElseThrow()).as("smallest share of %d nodes", n).isGreaterThan((int) (mean - 4.5 * sigma));
    }
    System.out.print(report);
  }

  @Test
  void addingOrRemovingANodeMovesOnlyItsKeys() {
    long[] keys = keys();
    StringBuilder report = new StringBuilder("movement (10^5 keys): n, moved on add (fraction, 1/(n+1)), moved on remove (fraction, 1/n)\n");
    for (int n : new int[] {3, 10, 50, 200}) {
      List<ClusterNode> before = nodes(n);
      String[] ownersBefore = owners(new Rendezvous(before), keys);

      List<ClusterNode> grown = new ArrayList<>(before);
      grown.add(new ClusterNode("worker-new", "new-host", 8899));
      String[] ownersGrown = owners(new Rendezvous(grown), keys);
      int movedOnAdd = 0;
      for (int i = 0; i < keys.length; i++) {
        if (!ownersGrown[i].equals(ownersBefore[i])) {
          assertThat(ownersGrown[i]).as("a key that moves on add moves to the new node").isEqualTo("worker-new");
          movedOnAdd++;
        }
      }
      assertWithinBinomial(movedOnAdd, 1.0 / (n + 1), "moved to the added node of " + (n + 1));

      List<ClusterNode> shrunk = new ArrayList<>(before);
      ClusterNode removed = shrunk.remove(n / 2);
      String[] ownersShrunk = owners(new Rendezvous(shrunk), keys);
      int movedOnRemove = 0;
      for (int i = 0; i < keys.length; i++) {
        if (!ownersShrunk[i].equals(ownersBefore[i])) {
          assertThat(ownersBefore[i]).as("only keys of the removed node move").isEqualTo(removed.id());
          movedOnRemove++;
        } else {
          assertThat(ownersBefore[i]).isNotEqualTo(removed.id());
        }
      }
      assertWithinBinomial(movedOnRemove, 1.0 / n, "moved from the removed node of " + n);
      report.append(String.format("%d, %d (%.4f, %.4f), %d (%.4f, %.4f)%n", n, movedOnAdd, (double) movedOnAdd / KEYS, 1.0 / (n + 1),
          movedOnRemove, (double) movedOnRemove / KEYS, 1.0 / n));
    }
    System.out.print(report);
  }

  @Test
  void orderOfTheNodeListDoesNotMatterAndTopHostsAreDistinct() {
    List<ClusterNode> nodes = nodes(20);
    List<ClusterNode> reversed = new ArrayList<>(nodes);
    java.util.Collections.reverse(reversed);
    Rendezvous forward = new Rendezvous(nodes);
    Rendezvous backward = new Rendezvous(reversed);
    int[] top = new int[3];
    for (long key : java.util.Arrays.copyOf(keys(), 5000)) {
      assertThat(backward.node(backward.owner(key))).isEqualTo(forward.node(forward.owner(key)));
      assertThat(forward.top(key, top)).isEqualTo(3);
      assertThat(top[0]).isEqualTo(forward.owner(key));
      Set<Integer> distinct = new HashSet<>(List.of(top[0], top[1], top[2]));
      assertThat(distinct).hasSize(3);
      // the second choice is the owner once the owner is gone
      List<ClusterNode> without = new ArrayList<>(nodes);
      without.remove(forward.node(top[0]));
      Rendezvous next = new Rendezvous(without);
      assertThat(next.node(next.owner(key))).isEqualTo(forward.node(top[1]));
    }
    Rendezvous two = new Rendezvous(nodes(2));
    assertThat(two.top(1L, top)).isEqualTo(2);
  }

  private static void assertWithinBinomial(int count, double p, String what) {
    double mean = KEYS * p;
    double sigma = Math.sqrt(KEYS * p * (1 - p));
    assertThat((double) count).as("keys %s (expected %.0f +- 5 x %.1f)", what, mean, sigma).isBetween(mean - 5 * sigma, mean + 5 * sigma);
  }
}
