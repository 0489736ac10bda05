package io.rubix.core.read.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BlockRunsTest {
  /** Keys of blocks 10..19: runs [10,13) [13,14) [14,18) [18,20). */
  private static final int[] KEYS = {1, 1, 1, 0, 2, 2, 2, 2, 1, 1};

  private static int key(int block) {
    return KEYS[block - 10];
  }

  private static List<String> runs(int first, int end, int maxBlocks) {
    List<String> runs = new ArrayList<>();
    for (int b = first, runEnd; b < end; b = runEnd) {
      runEnd = BlockRuns.end(b, end, maxBlocks, BlockRunsTest::key);
      runs.add("[" + b + "," + runEnd + ")");
    }
    return runs;
  }

  @Test
  void aRunEndsWhereTheKeyChangesOrAtTheRangesEnd() {
    assertThat(runs(10, 20, Integer.MAX_VALUE)).containsExactly("[10,13)", "[13,14)", "[14,18)", "[18,20)");
    assertThat(runs(11, 16, Integer.MAX_VALUE)).as("a range that cuts runs").containsExactly("[11,13)", "[13,14)", "[14,16)");
    assertThat(BlockRuns.end(19, 20, BlockRunsTest::key)).as("a one-block range").isEqualTo(20);
  }

  @Test
  void aRunHoldsAtMostMaxBlocks() {
    assertThat(runs(10, 20, 3)).containsExactly("[10,13)", "[13,14)", "[14,17)", "[17,18)", "[18,20)");
    assertThat(runs(14, 18, 1)).containsExactly("[14,15)", "[15,16)", "[16,17)", "[17,18)");
  }

  @Test
  void noRunStartsAtOrPastTheEnd() {
    assertThatThrownBy(() -> BlockRuns.end(5, 5, b -> 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BlockRuns.end(4, 5, 0, b -> 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void splitHandsOverEachRunInOrderWithWhetherItPasses() throws Exception {
    List<String> runs = new ArrayList<>();
    BlockRuns.split(10, 20, b -> key(b) == 1, (first, end, passes) -> runs.add("[" + first + "," + end + ")" + passes));
    assertThat(runs).containsExactly("[10,13)true", "[13,18)false", "[18,20)true");
  }

  @Test
  void byKeyHandsOverEachRunWithItsKey() throws Exception {
    List<String> runs = new ArrayList<>();
    BlockRuns.byKey(11, 19, BlockRunsTest::key, (first, end, key) -> runs.add("[" + first + "," + end + ")=" + key));
    assertThat(runs).containsExactly("[11,13)=1", "[13,14)=0", "[14,18)=2", "[18,19)=1");
  }

  @Test
  void anEmptyRangeHasNoRunsAndAFailingRunStopsTheSplit() {
    BlockRuns.split(5, 5, b -> true, (first, end, passes) -> {
      throw new AssertionError("no run in an empty range");
    });
    List<Integer> seen = new ArrayList<>();
    assertThatThrownBy(() -> BlockRuns.split(10, 20, b -> key(b) == 1, (first, end, passes) -> {
      seen.add(first);
      if (!passes) {
        throw new java.io.IOException("run " + first);
      }
    })).hasMessage("run 13");
    assertThat(seen).containsExactly(10, 13);
  }
}
