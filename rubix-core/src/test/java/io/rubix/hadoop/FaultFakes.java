package io.rubix.hadoop;

import io.rubix.core.store.ChannelOpener;
import io.rubix.core.store.ForwardingFileChannel;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.impl.OpenFileParameters;

/** Hand-written fault-injecting fakes for the cache's disk and for the source file system. */
final class FaultFakes {
  static final String NO_SPACE = "No space left on device";

  private FaultFakes() {}

  /** A file channel whose writes all fail as on a full disk; reads and everything else pass through. */
  static final class NoSpaceChannel extends ForwardingFileChannel {
    NoSpaceChannel(FileChannel delegate) {
      super(delegate);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      throw new IOException(NO_SPACE);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      throw new IOException(NO_SPACE);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      throw new IOException(NO_SPACE);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
      throw new IOException(NO_SPACE);
    }
  }

  /** Opens cache files whose writes fail with "No space left on device". */
  static final class NoSpaceOpener implements ChannelOpener {
    @Override
    public FileChannel open(Path file) throws IOException {
      return new NoSpaceChannel(ChannelOpener.DEFAULT.open(file));
    }
  }

  /** {@code file://} caching onto a disk that is full. */
  public static class NoSpaceCachingFileSystem extends CachingLocalFileSystem {
    @Override
    protected ChannelOpener cacheChannelOpener() {
      return new NoSpaceOpener();
    }
  }

  /** A local file system whose {@code openFile} builders open through its own {@code open}, where the fakes inject their faults. */
  abstract static class OpenedThroughOpen extends FilterFileSystem {
    OpenedThroughOpen() {
      super(new LocalFileSystem());
    }

    @Override
    public FutureDataInputStreamBuilder openFile(org.apache.hadoop.fs.Path path) {
      return createDataInputStreamBuilder(this, path);
    }

    @Override
    protected CompletableFuture<FSDataInputStream> openFileWithOptions(org.apache.hadoop.fs.Path path, OpenFileParameters parameters)
        throws IOException {
      return CompletableFuture.completedFuture(open(path, parameters.getBufferSize()));
    }
  }

  /**
   * The local file system with streams that return at most {@code test.short.read.max} bytes per
   * read call (positioned or not), like a slow network stream; counts the reads it shortened.
   */
  public static class ShortReadFileSystem extends OpenedThroughOpen {
    static final String MAX_KEY = "test.short.read.max";
    final AtomicLong shortened = new AtomicLong();
    private int max;

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
      super.initialize(name, conf);
      this.max = conf.getInt(MAX_KEY, 1);
    }

    @Override
    public FSDataInputStream open(org.apache.hadoop.fs.Path path, int bufferSize) throws IOException {
      return new FSDataInputStream(new ShortReadStream(fs.open(path, bufferSize), max, shortened));
    }
  }

  /**
   * The local file system whose positioned reads at or after {@link #arm armed} offsets wait for a
   * gate, so a test can hold a block fetch in flight while it changes the cache under it.
   */
  public static class GatedFileSystem extends OpenedThroughOpen {
    private volatile long gateFrom = Long.MAX_VALUE;
    private volatile java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(0);
    private volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);

    /** Makes the next reads at or after {@code from} wait for {@link #release}; returns a latch counted down when one arrives. */
    java.util.concurrent.CountDownLatch arm(long from) {
      arrived = new java.util.concurrent.CountDownLatch(1);
      gate = new java.util.concurrent.CountDownLatch(1);
      gateFrom = from;
      return arrived;
    }

    void release() {
      gateFrom = Long.MAX_VALUE;
      gate.countDown();
    }

    @Override
    public FSDataInputStream open(org.apache.hadoop.fs.Path path, int bufferSize) throws IOException {
      FSDataInputStream in = fs.open(path, bufferSize);
      return new FSDataInputStream(new ShortReadStream(in, Integer.MAX_VALUE, new AtomicLong()) {
        @Override
        public int read(long position, byte[] buffer, int offset, int length) throws IOException {
          if (position >= gateFrom) {
            java.util.concurrent.CountDownLatch waitFor = gate;
            arrived.countDown();
            try {
              waitFor.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.InterruptedIOException("interrupted at the gate");
            }
          }
          return super.read(position, buffer, offset, length);
        }
      });
    }
  }

  /**
   * The local file system whose positioned reads starting inside an armed byte range fail
   * ({@link #failReadsIn}) or wait for a gate ({@link #holdReadsIn}), so a test can make one chunk
   * of a read fail while another is still in flight.
   */
  public static class FaultySourceFileSystem extends OpenedThroughOpen {
    static final String FAILURE = "injected source failure";
    private volatile long failFrom = -1;
    private volatile long failTo = -1;
    private volatile java.util.concurrent.CountDownLatch failed = new java.util.concurrent.CountDownLatch(0);
    private volatile java.util.concurrent.CountDownLatch failAfter = new java.util.concurrent.CountDownLatch(0);
    private volatile long holdFrom = -1;
    private volatile long holdTo = -1;
    private volatile java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(0);
    private volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);

    /** Makes reads starting in {@code [from, to)} fail; returns a latch counted down when one has failed. */
    java.util.concurrent.CountDownLatch failReadsIn(long from, long to) {
      return failReadsIn(from, to, new java.util.concurrent.CountDownLatch(0));
    }

    /**
     * Makes reads starting in {@code [from, to)} fail, each only once {@code after} is counted down (a
     * test orders the failure after another event, such as a held read having started: a latch, not
     * the hope that another thread got there first); returns a latch counted down when one has failed.
     */
    java.util.concurrent.CountDownLatch failReadsIn(long from, long to, java.util.concurrent.CountDownLatch after) {
      failed = new java.util.concurrent.CountDownLatch(1);
      failAfter = after;
      failFrom = from;
      failTo = to;
      return failed;
    }

    /** Makes reads starting in {@code [from, to)} wait for {@link #release}; returns a latch counted down when one waits. */
    java.util.concurrent.CountDownLatch holdReadsIn(long from, long to) {
      held = new java.util.concurrent.CountDownLatch(1);
      gate = new java.util.concurrent.CountDownLatch(1);
      holdFrom = from;
      holdTo = to;
      return held;
    }

    void release() {
      holdFrom = -1;
      holdTo = -1;
      gate.countDown();
    }

    void heal() {
      failFrom = -1;
      failTo = -1;
    }

    @Override
    public FSDataInputStream open(org.apache.hadoop.fs.Path path, int bufferSize) throws IOException {
      FSDataInputStream in = fs.open(path, bufferSize);
      return new FSDataInputStream(new ShortReadStream(in, Integer.MAX_VALUE, new AtomicLong()) {
        @Override
        public int read(long position, byte[] buffer, int offset, int length) throws IOException {
          if (position >= holdFrom && position < holdTo) {
            java.util.concurrent.CountDownLatch waitFor = gate;
            held.countDown();
            try {
              waitFor.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.InterruptedIOException("interrupted at the gate");
            }
          }
          if (position >= failFrom && position < failTo) {
            try {
              // bounded so that a read that never comes fails the test (its own latch says so) rather than hanging it
              failAfter.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new java.io.InterruptedIOException("interrupted before failing");
            }
            failed.countDown();
            throw new IOException(FAILURE + " at " + position + " of " + path);
          }
          return super.read(position, buffer, offset, length);
        }
      });
    }
  }

  private static class ShortReadStream extends FSInputStream {
    private final FSDataInputStream in;
    private final int max;
    private final AtomicLong shortened;

    ShortReadStream(FSDataInputStream in, int max, AtomicLong shortened) {
      this.in = in;
      this.max = max;
      this.shortened = shortened;
    }

    private int limit(int length) {
      if (length > max) {
        shortened.incrementAndGet();
        return max;
      }
      return length;
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return in.read(buffer, offset, limit(length));
    }

    @Override
    public int read(long position, byte[] buffer, int offset, int length) throws IOException {
      return in.read(position, buffer, offset, limit(length));
    }

    @Override
    public void seek(long position) throws IOException {
      in.seek(position);
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
      return false;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
