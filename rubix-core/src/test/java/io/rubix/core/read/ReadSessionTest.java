package io.rubix.core.read;

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
    // window starts at one chunk (4 blocks) and doubles with each new block read, up to 16 blocks
    assertThat(s.noteRead(0, BLOCK, BLOCK, 16, 4)).containsExactly(1, 5);
    assertThat(s.noteRead(BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(5, 10);
    assertThat(s.noteRead(2L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(10, 19);
    // full window: nothing until a whole chunk fits beyond the read-ahead end
    assertThat(s.noteRead(3L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(4L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(5L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(6L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(19, 23);
  }

  @Test
  void smallReadsWithinABlockRequestNothingNew() {
    ReadSession s = session(64);
    assertThat(s.noteRead(0, 65536, BLOCK, 16, 4)).containsExactly(1, 5);
    for (int i = 1; i < 16; i++) {
      assertThat(s.noteRead(i * 65536L, 65536, BLOCK, 16, 4)).isNull();
    }
    assertThat(s.noteRead(BLOCK, 65536, BLOCK, 16, 4)).containsExactly(5, 10);
  }

  @Test
  void tailShorterThanAChunkIsRequestedAtTheEnd() {
    ReadSession s = session(6);
    assertThat(s.noteRead(0, BLOCK, BLOCK, 16, 4)).containsExactly(1, 5);
    assertThat(s.noteRead(BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(5, 6);
    assertThat(s.noteRead(2L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
  }

  @Test
  void randomReadResetsAndDisabledReadAheadRequestsNothing() {
    ReadSession s = session(64);
    assertThat(s.noteRead(0, BLOCK, BLOCK, 16, 4)).containsExactly(1, 5);
    assertThat(s.noteRead(40L * BLOCK, BLOCK, BLOCK, 16, 4)).isNull();
    assertThat(s.noteRead(41L * BLOCK, BLOCK, BLOCK, 16, 4)).containsExactly(42, 46);
    assertThat(session(64).noteRead(0, BLOCK, BLOCK, 0, 4)).isNull();
  }
}
