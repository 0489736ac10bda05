package io.rubix.core.store;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * An open cache data file, shared by all readers and writers of this JVM, and the blocks verified
 * through it. Writers hold {@link #writing} (shared) from their check that the file is live to their
 * re-check after the write; closing takes it exclusively, so the handle is never closed between a
 * write landing and its re-check, which takes back a block that landed in a dropped file.
 */
public final class CacheFile implements Closeable {
  private final Path path;
  private final FileChannel channel;
  private final Set<Integer> verifiedBlocks = ConcurrentHashMap.newKeySet();
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();

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

  /** Held (shared) by a writer from its liveness check to its re-check; never while calling {@link CacheFiles}. */
  Lock writing() {
    return gate.readLock();
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

  /** Closes the handle once no write through it waits for its re-check. */
  @Override
  public void close() throws IOException {
    gate.writeLock().lock();
    try {
      channel.close();
    } finally {
      gate.writeLock().unlock();
    }
  }
}
