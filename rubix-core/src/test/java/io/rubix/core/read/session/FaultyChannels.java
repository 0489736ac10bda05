package io.rubix.core.read.session;

import io.rubix.core.store.ChannelOpener;
import io.rubix.core.store.ForwardingFileChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** Cache files whose positioned reads or writes fail while the test says so, as on a failing disk. */
public final class FaultyChannels implements ChannelOpener {
  public volatile boolean failReads;
  public volatile boolean failWrites;

  @Override
  public FileChannel open(Path file) throws IOException {
    FileChannel delegate = ChannelOpener.DEFAULT.open(file);
    return new ForwardingFileChannel(delegate) {
      @Override
      public int read(ByteBuffer dst, long position) throws IOException {
        if (failReads) {
          throw new IOException("Input/output error reading " + file);
        }
        return super.read(dst, position);
      }

      @Override
      public int write(ByteBuffer src, long position) throws IOException {
        if (failWrites) {
          throw new IOException("No space left on device writing " + file);
        }
        return super.write(src, position);
      }
    };
  }
}
