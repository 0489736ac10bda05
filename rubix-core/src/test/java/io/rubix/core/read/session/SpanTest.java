package io.rubix.core.read.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class SpanTest {
  private static final int BLOCK = 100;

  @Test
  void blocksClipToTheSpanAndMapObjectPositionsToBufferIndexes() {
    byte[] target = new byte[250];
    // object bytes [150, 400) go to target[0, 250)
    Span span = new Span(150, ByteBuffer.wrap(target));
    assertThat(span.firstBlock(BLOCK)).isEqualTo(1);
    assertThat(span.endBlock(BLOCK)).isEqualTo(4);
    assertThat(span.end()).isEqualTo(400);

    Span first = span.blocks(1, 2, BLOCK);
    assertThat(first.position()).isEqualTo(150);
    assertThat(first.length()).isEqualTo(50);
    Span middle = span.blocks(2, 3, BLOCK);
    assertThat(middle.position()).isEqualTo(200);
    assertThat(middle.length()).isEqualTo(100);
    Span last = span.blocks(3, 9, BLOCK);
    assertThat(last.position()).isEqualTo(300);
    assertThat(last.length()).isEqualTo(100);

    byte[] bytes = new byte[100];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i + 1);
    }
    middle.put(bytes, 0);
    // object position 200 is index 50 of the caller's buffer; put does not move the slice
    assertThat(target[49]).isZero();
    assertThat(target[50]).isEqualTo((byte) 1);
    assertThat(target[149]).isEqualTo((byte) 100);
    assertThat(target[150]).isZero();
    assertThat(middle.buffer().position()).isZero();
  }

  @Test
  void rangesNestAndStayInsideTheirSpan() {
    byte[] target = new byte[300];
    // the caller's buffer from index 100 on, as the reader slices it
    Span span = new Span(1000, ByteBuffer.wrap(target).slice(100, 200));
    assertThat(span.length()).isEqualTo(200);
    Span inner = span.range(1050, 1150).from(1100);
    assertThat(inner.position()).isEqualTo(1100);
    assertThat(inner.length()).isEqualTo(50);
    inner.put(new byte[] {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, 0);
    // object position 1100 is index 100 of the span, 200 of the array
    assertThat(target[199]).isZero();
    assertThat(target[200]).isEqualTo((byte) 7);
    assertThat(target[249]).isEqualTo((byte) 7);
    assertThat(target[250]).isZero();

    assertThatThrownBy(() -> span.range(999, 1010)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> span.range(1100, 1201)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> span.range(1100, 1099)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void emptySpansAndInvalidOnesAreTold() {
    Span empty = new Span(500, ByteBuffer.allocate(0));
    assertThat(empty.firstBlock(BLOCK)).isEqualTo(5);
    assertThat(empty.endBlock(BLOCK)).isEqualTo(5);
    assertThatThrownBy(() -> new Span(-1, ByteBuffer.allocate(1))).isInstanceOf(IllegalArgumentException.class);
    ByteBuffer moved = ByteBuffer.allocate(10);
    moved.position(1);
    assertThatThrownBy(() -> new Span(0, moved)).isInstanceOf(IllegalArgumentException.class);
  }
}
