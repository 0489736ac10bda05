package io.rubix.core.metadata.eviction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The window's hill climber: which way it moves the window after each sample, and by how much. */
class HillClimberTest {
  private static final int SAMPLE = 100;

  @Test
  void growsTheWindowWhileTheHitRatioDoesNotDrop() {
    HillClimber climber = new HillClimber();
    assertThat(climber.window()).isEqualTo(HillClimber.INITIAL_WINDOW);

    sample(climber, 0.50);
    double first = climber.window();
    sample(climber, 0.51);
    double second = climber.window();
    sample(climber, 0.51);

    assertThat(first).isCloseTo(HillClimber.INITIAL_WINDOW + HillClimber.STEP, within(1e-9));
    assertThat(second).isGreaterThan(first);
    assertThat(climber.window()).isGreaterThan(second);
    assertThat(climber.samples()).isEqualTo(3);
  }

  @Test
  void turnsBackWhenTheHitRatioDrops() {
    HillClimber climber = new HillClimber();
    sample(climber, 0.50);
    sample(climber, 0.52);
    double grown = climber.window();

    sample(climber, 0.49);
    double turned = climber.window();
    sample(climber, 0.50);

    assertThat(turned).isLessThan(grown);
    assertThat(climber.window()).as("keeps shrinking while it does not drop").isLessThan(turned);
  }

  @Test
  void stepsShrinkUntilTheHitRatioJumpsThenRestartAtFullSize() {
    HillClimber climber = new HillClimber();
    sample(climber, 0.50);
    sample(climber, 0.51);
    double before = climber.window();
    sample(climber, 0.51);
    assertThat(climber.window() - before).isCloseTo(HillClimber.STEP * HillClimber.DECAY, within(1e-9));

    sample(climber, 0.70);
    before = climber.window();
    sample(climber, 0.70);
    assertThat(climber.window() - before).as("the step after the jump is a full one").isCloseTo(HillClimber.STEP, within(1e-9));
  }

  @Test
  void staysBetweenNoWindowAndAllOfTheCap() {
    HillClimber rising = new HillClimber();
    HillClimber falling = new HillClimber();
    sample(falling, 0.5);
    sample(falling, 0.4);
    for (int i = 0; i < 100; i++) {
      sample(rising, 0.5 + i * 0.001);
      sample(falling, 0.4 + i * 0.001);
    }
    assertThat(rising.window()).isEqualTo(1.0);
    assertThat(falling.window()).isEqualTo(0.0);
  }

  @Test
  void movesOnlyAtTheEndOfASample() {
    HillClimber climber = new HillClimber();
    for (int i = 0; i < SAMPLE - 1; i++) {
      assertThat(climber.record(1, 1, SAMPLE)).isFalse();
    }
    assertThat(climber.window()).isEqualTo(HillClimber.INITIAL_WINDOW);
    assertThat(climber.record(1, 1, SAMPLE)).isTrue();
    assertThat(climber.window()).isGreaterThan(HillClimber.INITIAL_WINDOW);
  }

  /** One sample of reads whose byte hit ratio is {@code hitRatio}. */
  private static void sample(HillClimber climber, double hitRatio) {
    for (int i = 0; i < SAMPLE; i++) {
      climber.record(Math.round(hitRatio * 1000), 1000, SAMPLE);
    }
  }
}
