package io.rubix.core.read.fetch;

import static io.rubix.core.read.session.ReadFixture.BLOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.read.session.ReadFixture;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrantedRunsTest {
  @TempDir
  Path root;

  private final InFlightBuffers inFlight = new InFlightBuffers();

  @Test
  void grantedBlocksAreSplitIntoChunksAroundTheOnesNotGranted() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, 10L * BLOCK)) {
      cache(fixture, 2);
      BlockRange lease = fixture.service.acquire(fixture.version, 0, 9);
      assertThat(lease.state(2)).isEqualTo(BlockState.CACHED);
      try (GrantedRuns granted = new GrantedRuns(fixture.service, inFlight, lease, 0, 9, 3)) {
        List<GrantedRun> runs = granted.in(0, 9);
        assertThat(runs).extracting(GrantedRun::first).containsExactly(0, 3, 6);
        assertThat(runs).extracting(GrantedRun::end).containsExactly(2, 6, 9);
        // every granted block is registered in flight, the cached one is not
        assertThat(inFlight.get(fixture.version, 0)).isNotNull();
        assertThat(inFlight.get(fixture.version, 2)).isNull();
        assertThat(inFlight.get(fixture.version, 8)).isNotNull();
        // runs are found by where they start
        assertThat(granted.in(3, 6)).extracting(GrantedRun::first).containsExactly(3);
        assertThat(granted.in(1, 3)).isEmpty();
      }
    }
  }

  @Test
  void closeGivesBackOnlyTheRunsNobodyTook() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, 6L * BLOCK)) {
      BlockRange lease = fixture.service.acquire(fixture.version, 0, 6);
      GrantedRun taken;
      try (GrantedRuns granted = new GrantedRuns(fixture.service, inFlight, lease, 0, 6, 2)) {
        taken = granted.take(granted.in(2, 4).get(0));
        assertThat(granted.in(0, 6)).extracting(GrantedRun::first).containsExactly(0, 4);
        assertThatThrownBy(() -> granted.take(taken)).isInstanceOf(IllegalStateException.class).hasMessageContaining("already taken");
      }
      BlockRange after = fixture.service.status(fixture.version, 0, 6);
      assertThat(after.state(0)).isEqualTo(BlockState.MISSING);
      assertThat(after.state(5)).isEqualTo(BlockState.MISSING);
      // the taken run is its taker's: still in flight until it ends it
      assertThat(after.state(2)).isEqualTo(BlockState.IN_FLIGHT);
      assertThat(inFlight.get(fixture.version, 2)).isNotNull();
      assertThat(inFlight.get(fixture.version, 0)).isNull();
      taken.close();
      assertThat(fixture.service.status(fixture.version, 2, 3).state(2)).isEqualTo(BlockState.MISSING);
    }
  }

  private static void cache(ReadFixture fixture, int block) throws IOException {
    BlockRange lease = fixture.service.acquire(fixture.version, block, block + 1);
    int crc = fixture.store.write(Path.of(lease.dataFile()), fixture.version, block, ByteBuffer.wrap(fixture.data, block * BLOCK, BLOCK));
    assertThat(fixture.service.commit(lease.leaseId(), new int[] {block}, new int[] {crc})).isEqualTo(1);
  }
}
