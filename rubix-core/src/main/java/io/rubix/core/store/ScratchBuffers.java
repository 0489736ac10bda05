package io.rubix.core.store;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** A bounded pool of block-sized direct buffers for verifying partially read blocks without allocating per read. */
final class ScratchBuffers {
  private final int size;
  private final int maxPooled;
  private final ConcurrentLinkedQueue<ByteBuffer> pool = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pooled = new AtomicInteger();

  ScratchBuffers(int size, int maxPooled) {
    this.size = size;
    this.maxPooled = maxPooled;
  }

  ByteBuffer take() {
    ByteBuffer buffer = pool.poll();
    if (buffer == null) {
      return ByteBuffer.allocateDirect(size);
    }
    pooled.decrementAndGet();
    return buffer.clear();
  }

  void give(ByteBuffer buffer) {
    if (pooled.incrementAndGet() <= maxPooled) {
      pool.offer(buffer);
    } else {
      pooled.decrementAndGet();
    }
  }
}
