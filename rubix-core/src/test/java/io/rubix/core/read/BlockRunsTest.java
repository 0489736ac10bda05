package io.rubix.core.read;

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
}
