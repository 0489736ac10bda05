package io.rubix.core.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Opens cache data files for reading and writing. Replaced in tests to inject disk faults. */
@FunctionalInterface
public interface ChannelOpener {
  /** Opens {@code file} for reading and writing, creating it (and its directory) when missing; used by writers. */
  FileChannel open(Path file) throws IOException;

  /**
   * Opens {@code file} for reading and writing only if it exists; used by readers, which must never
   * create a file (a reader holding a stale status must not leave an empty file behind an eviction).
   */
  default FileChannel openExisting(Path file) throws IOException {
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString());
    }
    return open(file);
  }
}
