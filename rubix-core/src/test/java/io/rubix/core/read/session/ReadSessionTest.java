package io.rubix.core.read.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheStats;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import org.junit.jupiter.api.Test;

class ReadSessionTest {
  private static final int BLOCK = 1 << 20;

  private static ReadSession session(int blocks) {
    ObjectVersion version = new ObjectVersion("s3a://bucket/key", (long) blocks * BLOCK, 1, "etag");
    return new ReadSession(version, (position, buffer, offset, length) -> {}, new StreamStats(new CacheStats()), BLOCK);
  }

  @Test
  void sequentialReaderKeepsTheWindowFullOneChunkAtATime() {
    ReadSession s = session(64);
    // the first read is no evidence; the second continues it: the window starts at twice the run (2 blocks read: 4)
    assertThat(s.noteRead(0, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(2, 6);
    // and doubles with each new block read, up to 16 blocks
    assertThat(s.noteRead(2L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(6, 11);
    assertThat(s.noteRead(3L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(11, 20);
    // full window: nothing until a whole chunk fits beyond the read-ahead end
    assertThat(s.noteRead(4L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(5L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(6L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(7L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(20, 24);
  }

  @Test
  void smallReadsStartASmallWindowThatGrowsBlockByBlock() {
    ReadSession s = session(64);
    assertThat(s.noteRead(0, 65536, BLOCK, 16, 4)).isNull();
    // 128 KiB read in a row: twice that rounds up to one block
    assertThat(s.noteRead(65536, 65536, BLOCK, 16, 4)).containsExactly(1, 2);
    for (int i = 2; i < 16; i++) {
      assertThat(s.noteRead(i * 65536L, 65536, BLOCK, 16, 4)).isNull();
    }
    assertThat(s.noteRead(BLOCK, 65536, BLOCK, 16, 4)).containsExactly(2, 4);
    for (int i = 17; i < 32; i++) {
      assertThat(s.noteRead(i * 65536L, 65536, BLOCK, 16, 4)).isNull();
    }
    // window 4 at block 2: [4, 7) is less than a chunk, so it waits for the next block
    for (int i = 32; i < 48; i++) {
      assertThat(s.noteRead(i * 65536L, 65536, BLOCK, 16, 4)).isNull();
    }
    assertThat(s.noteRead(3L * BLOCK, 65536, BLOCK, 16, 4)).containsExactly(4, 12);
  }

  @Test
  void oneReadIsNoEvidenceHoweverLargeOrWhereverItStarts() {
    ReadSession s = session(64);
    // a footer, then column chunks read whole, each after a jump: a columnar reader
    assertThat(s.noteRead(63L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(0, 8 * BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(20L * BLOCK + 100, 3 * BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(40L * BLOCK, 100, BLOCK, 16, 4)).isNull();
  }

  /** Parquet reads a run of adjacent column chunks in buffers of 8 MiB: a range it named, read in parts, not a scan. */
  @Test
  void aReadContinuingOneOfAWholeChunkIsNoEvidence() {
    ReadSession s = session(64);
    // a chunk is 4 blocks: a 5-block read, then the 2 blocks after it, as readFully into two buffers
    assertThat(s.noteRead(3L * BLOCK, 5 * BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(8L * BLOCK, 2 * BLOCK, BLOCK, 16, 4)).isNull();
    // the second read was smaller than a chunk: a read continuing it is evidence, of a run that began at it
    assertThat(s.noteRead(10L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(11, 17);
    // one block short of a chunk is still a stream's buffer
    ReadSession buffers = session(64);
    assertThat(buffers.noteRead(0, 3 * BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(buffers.noteRead(3L * BLOCK, 3 * BLOCK, BLOCK, 16, 4)).containsExactly(6, 18);
  }

  @Test
  void tailShorterThanAChunkIsRequestedAtTheEnd() {
    ReadSession s = session(6);
    assertThat(s.noteRead(0, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(2, 6);
    assertThat(s.noteRead(2L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
  }

  @Test
  void randomReadResetsAndDisabledReadAheadRequestsNothing() {
    ReadSession s = session(64);
    assertThat(s.noteRead(0, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(2, 6);
    assertThat(s.noteRead(40L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(41L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(42, 46);
    ReadSession disabled = session(64);
    assertThat(disabled.noteRead(0, BLOCK, BLOCK, 0, 4)).isNull();
    assertThat(disabled.noteRead(BLOCK, BLOCK, BLOCK, 0, 4)).isNull();
  }

  /**
   * Two threads reading one stream from the cache: the one whose read fills the record of blocks to
   * report takes it at once, so another thread's read right after it (before the first reports) starts a
   * new record instead of writing past the full one (an ArrayIndexOutOfBoundsException before).
   */
  @Test
  void theReadThatFillsTheRecordTakesItAtOnce() {
    ReadSession s = session(CachedReads.REPORT_BLOCKS + 2);
    for (int b = 0; b < CachedReads.REPORT_BLOCKS - 1; b++) {
      assertThat(s.noteCachedRead(b)).isNull();
    }
    int[] due = s.noteCachedRead(CachedReads.REPORT_BLOCKS - 1);
    assertThat(due).hasSize(CachedReads.REPORT_BLOCKS).startsWith(0, 1, 2).endsWith(CachedReads.REPORT_BLOCKS - 1);
    // the other thread's read, before the first thread reported
    assertThat(s.noteCachedRead(CachedReads.REPORT_BLOCKS)).isNull();
    assertThat(s.takeCachedReads()).containsExactly(CachedReads.REPORT_BLOCKS);
  }
}
