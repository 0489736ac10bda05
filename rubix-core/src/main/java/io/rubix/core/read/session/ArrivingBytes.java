package io.rubix.core.read.session;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The bytes of one {@link io.rubix.core.read.fetch.GrantedRun} as this JVM's fetch reads them from the source, so that
 * they can be sent on while they arrive, before the run is written and committed (an owner streaming blocks to a peer,
 * see {@link io.rubix.core.read.fetch.ArrivingBlock}); or of one {@link HeldBytes} chunk as a stream's read of bytes the
 * cache declines brings them in. The fetch {@link #start}s it with the run's buffer, announces how many bytes from the
 * start are final ({@link #arrived}), and ends it by {@link #complete} or {@link #fail}; a failure after completion
 * changes nothing (every byte is in). It is in the base package because both the fetch and the uncached part use it.
 *
 * <p>Ownership: created and ended by its {@link io.rubix.core.read.fetch.GrantedRun} or its held chunk's read; that read
 * writes the buffer, others only read its final part. Thread-safe: one reading thread announces, any number of readers
 * wait, under this object's monitor (which also publishes the buffer's bytes to them).
 */
public final class ArrivingBytes {
  private final int firstBlock;
  @GuardedBy("this")
  private byte[] bytes;
  @GuardedBy("this")
  private int arrived;
  @GuardedBy("this")
  private boolean complete;
  @GuardedBy("this")
  private Throwable failure;

  public ArrivingBytes(int firstBlock) {
    this.firstBlock = firstBlock;
  }

  public int firstBlock() {
    return firstBlock;
  }

  /** The fetch reads the run into {@code buffer} from now on. */
  public synchronized void start(byte[] buffer) {
    this.bytes = buffer;
    notifyAll();
  }

  /** The first {@code count} bytes of the buffer are final. */
  public synchronized void arrived(int count) {
    if (bytes != null && count > arrived) {
      arrived = Math.min(count, bytes.length);
      notifyAll();
    }
  }

  /** Every byte of the run is in {@code buffer} (the one the fetch started with, if it started). */
  public synchronized void complete(byte[] buffer) {
    if (bytes == null) {
      bytes = buffer;
    }
    complete();
  }

  /** Every byte of the run is in. */
  public synchronized void complete() {
    if (bytes != null) {
      arrived = bytes.length;
      complete = true;
      notifyAll();
    }
  }

  /** The fetch ended without every byte: waiters for bytes not in see {@code cause}. */
  public synchronized void fail(Throwable cause) {
    if (!complete && failure == null) {
      failure = cause;
      notifyAll();
    }
  }

  /**
   * Waits until more than {@code have} bytes of the run are final, and returns how many are (at
   * least {@code have}; {@code have} only when {@code timeoutNanos} passed first). Bytes that arrived
   * before a failure are returned; beyond them the failure is thrown.
   */
  public synchronized int await(int have, long timeoutNanos) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (arrived <= have) {
      if (failure != null) {
        throw new IOException("The fetch of the run from block " + firstBlock + " failed after " + arrived + " bytes", failure);
      }
      if (complete) {
        return arrived;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return arrived;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return arrived;
  }

  /** The run's buffer; its first {@link #await} bytes are final. Null before the fetch started. */
  public synchronized byte[] bytes() {
    return bytes;
  }
}
