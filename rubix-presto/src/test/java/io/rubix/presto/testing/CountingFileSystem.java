package io.rubix.presto.testing;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * The local file system, counting the streams opened on it and the bytes read from them: the
 * "source" of a caching file system in the engine-Hadoop tests. Uses only the Hadoop 2.7 API.
 */
public final class CountingFileSystem extends RawLocalFileSystem {
  private final AtomicLong opens = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  public long opens() {
    return opens.get();
  }

  public long bytes() {
    return bytes.get();
  }

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    FSDataInputStream in = super.open(path, bufferSize);
    opens.incrementAndGet();
    return new FSDataInputStream(new Counting(in));
  }

  private final class Counting extends FSInputStream {
    private final FSDataInputStream in;

    Counting(FSDataInputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        bytes.incrementAndGet();
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return counted(in.read(buffer, offset, length));
    }

    @Override
    public int read(long position, byte[] buffer, int offset, int length) throws IOException {
      return counted(in.read(position, buffer, offset, length));
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      in.readFully(position, buffer, offset, length);
      bytes.addAndGet(length);
    }

    private int counted(int n) {
      if (n > 0) {
        bytes.addAndGet(n);
      }
      return n;
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
    public boolean seekToNewSource(long target) throws IOException {
      return false;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
