package io.rubix.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.benchmarks.ClusterScaleSimulation.Result;
import io.rubix.benchmarks.ClusterScaleSimulation.Splits;
import org.junit.jupiter.api.Test;

/**
 * Ownership of the TPC-DS-like warehouse's 29,287 splits over 100 nodes (about 290 per node, so the
 * bounds below are many standard deviations away from what a well-spread hash gives).
 */
class ClusterScaleSimulationTest {
  private static final Splits SPLITS = Splits.cut(TableSets.tpcdsLike(ClusterScaleSimulation.ROOT, 20261127L), 256 * TableSets.MIB);

  @Test
  void aJoinOrALeaveMovesAboutOneNodesShareAndNothingElse() {
    Result result = ClusterScaleSimulation.simulate(SPLITS, 100, 4);

    assertThat(result.join().strayMoves()).as("splits moved to a node other than the one that joined").isZero();
    assertThat(result.leave().strayMoves()).as("splits moved off a node other than the one that left").isZero();
    assertThat(result.join().splitShare()).isBetween(1.0 / 101 / 1.5, 1.5 / 101);
    assertThat(result.join().byteShare()).isBetween(1.0 / 101 / 1.5, 1.5 / 101);
    assertThat(result.leave().splitShare()).isBetween(1.0 / 100 / 1.5, 1.5 / 100);
    assertThat(result.leave().byteShare()).isBetween(1.0 / 100 / 1.5, 1.5 / 100);
  }

  @Test
  void noNodeHoldsMuchMoreThanItsShare() {
    Result result = ClusterScaleSimulation.simulate(SPLITS, 100, 0);

    assertThat(SPLITS.count()).isEqualTo(29_287);
    assertThat(result.balance().idleNodes()).isZero();
    assertThat(result.balance().maxMeanSplits()).isLessThan(1.3);
    assertThat(result.balance().maxMeanBytes()).isLessThan(1.3);
  }
}
