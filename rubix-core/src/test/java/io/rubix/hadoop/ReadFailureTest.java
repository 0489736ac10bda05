package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.awaitWrites;
import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.version;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.CacheEngine;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A read whose source fails in one run of blocks: every block its lease was granted is committed or
 * given back before the read throws (nothing stays in flight for other readers to wait on), and no
 * chunk of the read writes into the caller's buffer after the read has thrown.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ReadFailureTest {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 6;
  private static final int LENGTH = BLOCKS * BLOCK;

  @TempDir
  Path tmp;

  private RawLocalFileSystem plain;
  private org.apache.hadoop.fs.Path file;
  private byte[] data;
  private final ExecutorService helper = Executors.newSingleThreadExecutor();

  @BeforeEach
  void writeSource() throws IOException {
    plain = new RawLocalFileSystem();
    plain.initialize(URI.create("file:///"), new Configuration());
    data = new byte[LENGTH];
    new Random(17).nextBytes(data);
    file = new org.apache.hadoop.fs.Path(tmp.resolve("data/source.bin").toUri());
    write(plain, file, data);
  }

  @AfterEach
  void close() throws IOException {
    helper.shutdownNow();
    plain.close();
  }

  private FileSystem open(boolean strict) throws IOException {
    Configuration conf = localConf(tmp.resolve("cache"));
    conf.set("rubix.fs.file.wrapped.impl", FaultFakes.FaultySourceFileSystem.class.getName());
    conf.set("rubix.cache.block.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.fetch.chunk.size", Integer.toString(BLOCK));
    conf.set("rubix.cache.readahead.max", "0");
    conf.setBoolean("rubix.cache.strict.mode", strict);
    // only a commit or an abort may end a grant here, never its expiry
    conf.set("rubix.cache.lease.timeout", "1h");
    conf.set("rubix.cache.inflight.wait.timeout", "1h");
    conf.set("rubix.cache.inflight.policy", "source");
    return FileSystem.newInstance(URI.create("file:///"), conf);
  }

  private static FaultFakes.FaultySourceFileSystem source(FileSystem fs) {
    return (FaultFakes.FaultySourceFileSystem) ((FilterFileSystem) fs).getRawFileSystem();
  }

  private static CacheEngine engine(FileSystem fs) {
    return ((CachingFileSystem) fs).cacheEngine();
  }

  /** The version the stream reads, with block 2 granted to another reader (as if another JVM were fetching it). */
  private static ObjectVersion holdBlock2ElsewhereAndGetVersion(FileSystem fs, FSDataInputStream in, long[] leaseId) throws IOException {
    ObjectVersion version = version(in);
    BlockRange other = engine(fs).service().acquire(version, 2, 3);
    assertThat(other.state(2)).isEqualTo(BlockState.GRANTED);
    leaseId[0] = other.leaseId();
    return version;
  }

  private static void assertNothingInFlight(CacheEngine engine, ObjectVersion version) throws Exception {
    // strict mode writes in the reading thread; otherwise wait for the background writes the read started
    // (a grant that was never ended would keep the wait going for its hour, and the assertion would fail then)
    BlockRange state = awaitWrites(engine, version);
    for (int b = 0; b < BLOCKS; b++) {
      assertThat(state.state(b)).as("block %s", b).isNotEqualTo(BlockState.IN_FLIGHT);
    }
  }

  /**
   * The whole-file read gets one lease: blocks 0-1 granted (block 1 fetched in parallel), block 2 in
   * flight elsewhere (read from the source, as rubix.cache.inflight.policy=source says), blocks 3-5
   * granted. The source fails block 2, so the read fails in its second run.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void failedRunLeavesNoGrantedBlockInFlight(boolean strict) throws Exception {
    try (FileSystem fs = open(strict)) {
      CountDownLatch failed = source(fs).failReadsIn(2L * BLOCK, 3L * BLOCK);
      ObjectVersion version;
      long[] other = new long[1];
      try (FSDataInputStream in = fs.open(file)) {
        version = holdBlock2ElsewhereAndGetVersion(fs, in, other);
        assertThatThrownBy(() -> in.readFully(0, new byte[LENGTH])).isInstanceOf(IOException.class)
            .hasStackTraceContaining(FaultFakes.FaultySourceFileSystem.FAILURE);
      }
      assertThat(failed.getCount()).isZero();
      engine(fs).service().abort(other[0], new int[] {2}, false);
      assertNothingInFlight(engine(fs), version);

      source(fs).heal();
      try (FSDataInputStream in = fs.open(file)) {
        byte[] bytes = new byte[LENGTH];
        in.readFully(0, bytes);
        assertThat(bytes).isEqualTo(data);
      }
      BlockRange state = awaitWrites(engine(fs), version);
      for (int b = 0; b < BLOCKS; b++) {
        assertThat(state.state(b)).as("block %s, fetched and cached by the second reader", b).isEqualTo(BlockState.CACHED);
      }
    }
  }

  @Test
  void failedReadReturnsOnlyAfterItsOtherChunksStoppedWritingIntoTheBuffer() throws Exception {
    try (FileSystem fs = open(false)) {
      FaultFakes.FaultySourceFileSystem source = source(fs);
      CountDownLatch held = source.holdReadsIn(BLOCK, 2L * BLOCK);
      // block 2 fails only once block 1's chunk is reading (held): otherwise, on a loaded machine, the
      // read could fail before the fetch thread started that chunk, which then (rightly) gives its
      // block back unread, and the chunk this test is about would never run
      CountDownLatch failed = source.failReadsIn(2L * BLOCK, 3L * BLOCK, held);
      CountDownLatch thrown = new CountDownLatch(1);
      // releases the held chunk (block 1) once the read threw; a read that (rightly) waits for that
      // chunk never throws first, so the chunk is then released after a bound that only sets how
      // long the test takes, never whether it passes
      Future<?> releaser = helper.submit(() -> {
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(failed.await(30, TimeUnit.SECONDS)).isTrue();
        thrown.await(1, TimeUnit.SECONDS);
        source.release();
        return null;
      });
      byte[] buffer = new byte[LENGTH];
      byte[] whenThrown;
      ObjectVersion version;
      long[] other = new long[1];
      try (FSDataInputStream in = fs.open(file)) {
        version = holdBlock2ElsewhereAndGetVersion(fs, in, other);
        assertThatThrownBy(() -> in.readFully(0, buffer)).isInstanceOf(IOException.class);
        whenThrown = buffer.clone();
        thrown.countDown();
      }
      releaser.get(30, TimeUnit.SECONDS);
      // block 1's chunk copies into the buffer before it writes and commits the block
      engine(fs).service().awaitInFlight(version, 0, 2, TimeUnit.SECONDS.toMillis(30));
      assertThat(Arrays.equals(buffer, whenThrown)).as("nothing wrote into the buffer after the read threw").isTrue();
      assertThat(Arrays.copyOfRange(whenThrown, BLOCK, 2 * BLOCK)).as("the held chunk finished before the read threw")
          .isEqualTo(Arrays.copyOfRange(data, BLOCK, 2 * BLOCK));
      engine(fs).service().abort(other[0], new int[] {2}, false);
      assertNothingInFlight(engine(fs), version);
    }
  }
}
