package io.rubix.core.store;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;

/** An open cache data file, shared by all readers and writers of this JVM, and the blocks verified through it. */
public final class CacheFile implements Closeable {
  private final Path path;
  private final FileChannel channel;
  private final Set<Integer> verifiedBlocks = ConcurrentHashMap.newKeySet();

  CacheFile(Path path, FileChannel channel) {
    this.path = requireNonNull(path, "path is null");
    this.channel = requireNonNull(channel, "channel is null");
  }

  public Path path() {
    return path;
  }

  FileChannel channel() {
    return channel;
  }

  boolean verified(int block) {
    return verifiedBlocks.contains(block);
  }

  void markVerified(int block) {
    verifiedBlocks.add(block);
  }

  void forgetVerified(int block) {
    verifiedBlocks.remove(block);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
