package io.rubix.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.Admission;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.LocalIdentity;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ownership over the live nodes: a down node's splits go to their rendezvous runners-up and nothing
 * else moves; when it answers again every split is where it was. 10^4 (path, split) keys over 10 nodes.
 */
class LiveOwnershipTest {
  private static final int NODES = 10;
  private static final int FILES = 1000;
  private static final int SPLITS = 10;
  private static final long SPLIT_SIZE = 256L << 20;

  private final NodeLivenessTest.ManualScheduler scheduler = new NodeLivenessTest.ManualScheduler();
  private final Set<String> answering = new HashSet<>();

  private static List<ClusterNode> nodes() {
    List<ClusterNode> nodes = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      nodes.add(new ClusterNode("worker-" + i, "10.0.0." + (i + 1), 8899));
    }
    return nodes;
  }

  private ClusterLocality locality(String localId, int preferredHosts) {
    NodeLivenessTest.TestManager manager = new NodeLivenessTest.TestManager(LocalIdentity.ofNodeId(localId), nodes());
    LivenessConfig livenessConfig = new LivenessConfig(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(4), 8898, Duration.ofSeconds(1));
    NodeLiveness liveness = new NodeLiveness(manager, livenessConfig, node -> {
      if (!answering.contains(node.id())) {
        throw new IOException("refused");
      }
    }, System::nanoTime, scheduler);
    ClusterConfig config = new ClusterConfig("static", Optional.of(localId), 8899, Duration.ofSeconds(5), preferredHosts, SPLIT_SIZE, Admission.OWNER_ONLY);
    return new ClusterLocality(manager, config, liveness);
  }

  private static String path(int file) {
    return "s3a://warehouse/store_sales/part-" + file + ".orc";
  }

  /** The preferred hosts of every key. */
  private static List<List<ClusterNode>> owners(ClusterLocality locality) {
    List<List<ClusterNode>> owners = new ArrayList<>();
    for (int f = 0; f < FILES; f++) {
      for (int s = 0; s < SPLITS; s++) {
        owners.add(locality.owners(path(f), s));
      }
    }
    return owners;
  }

  @Test
  void onlyTheDownNodesSplitsMoveEachToItsRunnerUpAndAllComeBack() {
    ClusterLocality locality = locality("worker-0", 2);
    List<List<ClusterNode>> before = owners(locality);
    ClusterNode down = nodes().get(3);

    locality.liveness().markDown(down, "refused");
    List<List<ClusterNode>> during = owners(locality);
    int moved = 0;
    for (int k = 0; k < before.size(); k++) {
      assertThat(during.get(k)).as("key %s: the down node is no preferred host", k).doesNotContain(down);
      if (before.get(k).get(0).equals(down)) {
        assertThat(during.get(k).get(0)).as("key %s moves to its runner-up", k).isEqualTo(before.get(k).get(1));
        moved++;
      } else {
        assertThat(during.get(k).get(0)).as("key %s stays", k).isEqualTo(before.get(k).get(0));
      }
    }
    // about 1/10 of the keys: 1000 expected, binomial deviation ~30
    assertThat(moved).isBetween(850, 1150);
    int f = 0;
    int s = 0;
    while (!before.get(f * SPLITS + s).get(0).equals(down)) {
      if (++s == SPLITS) {
        s = 0;
        f++;
      }
    }
    assertThat(locality.ownerOf(path(f), s * SPLIT_SIZE + 5)).contains(during.get(f * SPLITS + s).get(0));

    answering.add(down.id());
    scheduler.runAll();
    assertThat(locality.liveness().isDown(down.id())).isFalse();
    assertThat(owners(locality)).as("every split back with its owner").isEqualTo(before);
  }

  @Test
  void aNodeCachesTheSplitsItInheritsFromADownNodeAndOnlyThose() {
    ClusterLocality locality = locality("worker-0", 1);
    ClusterNode local = nodes().get(0);
    ClusterNode down = nodes().get(5);
    List<List<ClusterNode>> before = owners(locality);
    locality.liveness().markDown(down, "refused");
    List<List<ClusterNode>> during = owners(locality);
    int inherited = 0;
    for (int f = 0; f < FILES; f++) {
      for (int s = 0; s < SPLITS; s++) {
        int k = f * SPLITS + s;
        assertThat(locality.admits(path(f), s * SPLIT_SIZE)).isEqualTo(during.get(k).get(0).equals(local));
        if (before.get(k).get(0).equals(down) && during.get(k).get(0).equals(local)) {
          inherited++;
        }
      }
    }
    assertThat(inherited).as("worker-0 inherits about 1/9 of worker-5's splits").isPositive();
  }

  @Test
  void whenEveryNodeIsDownTheWholeViewIsUsed() {
    // a reader that is not listed (a coordinator) and reached none of the nodes
    ClusterLocality locality = locality("coordinator", 1);
    List<List<ClusterNode>> before = owners(locality);
    for (ClusterNode node : nodes()) {
      locality.liveness().markDown(node, "refused");
    }
    assertThat(locality.liveness().snapshot().live()).isEmpty();
    assertThat(owners(locality)).isEqualTo(before);
    assertThat(locality.admits(path(0), 0)).as("a node that is not listed still caches nothing").isFalse();
  }
}
