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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrantedRunTest {
  @TempDir
  Path root;

  private ReadFixture fixture;
  private final InFlightBuffers inFlight = new InFlightBuffers();

  @BeforeEach
  void setUp() {
    // 3 whole blocks and a short last one
    fixture = new ReadFixture(root, 3L * BLOCK + 100);
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private GrantedRun grant(int first, int end) throws IOException {
    BlockRange lease = fixture.service.acquire(fixture.version, first, end);
    for (int b = first; b < end; b++) {
      assertThat(lease.state(b)).isEqualTo(BlockState.GRANTED);
    }
    return new GrantedRun(fixture.service, inFlight, fixture.version, lease.leaseId(), Path.of(lease.dataFile()), first, end);
  }

  private int write(GrantedRun run, int block) throws IOException {
    int length = fixture.version.blockLength(block, BLOCK);
    return fixture.store.write(run.dataFile(), fixture.version, block, ByteBuffer.wrap(fixture.data, block * BLOCK, length));
  }

  private BlockState state(int block) throws IOException {
    return fixture.service.status(fixture.version, block, block + 1).state(block);
  }

  @Test
  void publishHandsEachBlockItsOwnBytesAndSettleCommitsTheWrittenOnesAndGivesBackTheRest() throws Exception {
    GrantedRun run = grant(1, 4);
    CompletableFuture<ByteBuffer> block1 = inFlight.get(fixture.version, 1);
    CompletableFuture<ByteBuffer> block3 = inFlight.get(fixture.version, 3);
    assertThat(block1).isNotNull().isNotDone();

    run.publish(fixture.bytes(BLOCK, fixture.data.length), BLOCK);
    ByteBuffer one = block1.get();
    assertThat(one.remaining()).isEqualTo(BLOCK);
    byte[] copy = new byte[one.remaining()];
    one.get(copy);
    assertThat(copy).isEqualTo(fixture.bytes(BLOCK, 2L * BLOCK));
    // the short last block is just its bytes
    assertThat(block3.get().remaining()).isEqualTo(100);

    run.writing();
    int[] crcs = {write(run, 1), write(run, 2), 0};
    run.settle(2, crcs, false);
    assertThat(inFlight.get(fixture.version, 1)).isNull();
    assertThat(inFlight.get(fixture.version, 3)).isNull();
    assertThat(state(1)).isEqualTo(BlockState.CACHED);
    assertThat(state(2)).isEqualTo(BlockState.CACHED);
    // block 3 was given back: the next reader is granted it
    assertThat(state(3)).isEqualTo(BlockState.MISSING);
    assertThat(fixture.service.acquire(fixture.version, 3, 4).state(3)).isEqualTo(BlockState.GRANTED);
    // settled once only; a close afterwards changes nothing
    assertThatThrownBy(() -> run.settle(0, new int[0], false)).isInstanceOf(IllegalStateException.class);
    run.close();
    assertThat(state(1)).isEqualTo(BlockState.CACHED);
  }

  @Test
  void aWithheldBlockIsGivenBackAndTheOthersAreCommitted() throws Exception {
    GrantedRun run = grant(0, 3);
    run.writing();
    int[] crcs = {write(run, 0), write(run, 1), write(run, 2)};
    run.withhold(1);
    run.settle(3, crcs, false);
    assertThat(state(0)).isEqualTo(BlockState.CACHED);
    assertThat(state(1)).isEqualTo(BlockState.MISSING);
    assertThat(state(2)).isEqualTo(BlockState.CACHED);
    assertThat(fixture.service.acquire(fixture.version, 1, 2).state(1)).as("the next reader is granted it").isEqualTo(BlockState.GRANTED);
    assertThat(fixture.service.counters().refusedBlocks()).as("not committed, so not refused").isZero();
  }

  @Test
  void closeGivesEveryBlockBackAndFailsTheReadersWaitingForThem() throws Exception {
    GrantedRun run = grant(0, 2);
    CompletableFuture<ByteBuffer> waiting = inFlight.get(fixture.version, 0);
    assertThat(state(0)).isEqualTo(BlockState.IN_FLIGHT);

    run.close();
    assertThat(inFlight.get(fixture.version, 0)).isNull();
    assertThatThrownBy(waiting::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);
    assertThat(state(0)).isEqualTo(BlockState.MISSING);
    assertThat(state(1)).isEqualTo(BlockState.MISSING);
    // closed twice: once only
    run.close();
    assertThatThrownBy(() -> run.settle(0, new int[0], false)).isInstanceOf(IllegalStateException.class);
  }

  /**
   * An object dropped while this JVM fetches one of its blocks: the block is granted again, to a second
   * run of the same JVM, before the first one ends. Each run completes the futures it handed out and
   * removes only its own entries; the first run used to end the second run's entry instead, and its
   * own reader then waited out the whole in-flight wait timeout (20 s in the fuzz test, 30 s by
   * default) before going to the source.
   */
  @Test
  void aBlockGrantedAgainAfterADropWhileStillFetchedKeepsEachRunsReadersApart() throws Exception {
    GrantedRun first = grant(0, 1);
    CompletableFuture<ByteBuffer> firstReader = inFlight.get(fixture.version, 0);
    assertThat(fixture.service.invalidatePath(fixture.version.path())).isEqualTo(1);
    GrantedRun second = grant(0, 1);
    CompletableFuture<ByteBuffer> secondReader = inFlight.get(fixture.version, 0);
    assertThat(secondReader).isNotSameAs(firstReader);

    // the first fetch fails: its reader hears of it at once; the second run's entry stays
    first.close();
    assertThat(firstReader).isCompletedExceptionally();
    assertThat(inFlight.get(fixture.version, 0)).isSameAs(secondReader);
    assertThat(secondReader).isNotDone();

    second.publish(fixture.bytes(0, BLOCK), BLOCK);
    assertThat(secondReader.get().remaining()).isEqualTo(BLOCK);
    second.close();
    assertThat(inFlight.get(fixture.version, 0)).isNull();
  }

  @Test
  void aRunThatPublishesAfterTheBlockWasGrantedAgainCompletesItsOwnReaders() throws Exception {
    GrantedRun first = grant(0, 1);
    CompletableFuture<ByteBuffer> firstReader = inFlight.get(fixture.version, 0);
    assertThat(fixture.service.invalidatePath(fixture.version.path())).isEqualTo(1);
    GrantedRun second = grant(0, 1);
    CompletableFuture<ByteBuffer> secondReader = inFlight.get(fixture.version, 0);

    first.publish(fixture.bytes(0, BLOCK), BLOCK);
    assertThat(firstReader).as("the first run's reader has the first run's bytes").isDone();
    assertThat(firstReader.get().remaining()).isEqualTo(BLOCK);
    first.settle(0, new int[] {0}, false);
    assertThat(inFlight.get(fixture.version, 0)).as("the second run's entry outlives the first run").isSameAs(secondReader);
    second.close();
    assertThat(secondReader).isCompletedExceptionally();
  }

  @Test
  void anEmptyRunIsRefusedAndRegistersNothing() {
    assertThatThrownBy(() -> new GrantedRun(fixture.service, inFlight, fixture.version, 1, root.resolve("f"), 2, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[2, 2)")
        .hasMessageContaining(fixture.version.path());
    assertThat(inFlight.get(fixture.version, 2)).isNull();
  }
}
