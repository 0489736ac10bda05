package io.rubix.core.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens cache data files. Replaced in tests to inject disk faults. */
@FunctionalInterface
public interface ChannelOpener {
  /** Opens a cache data file for reading and writing, creating it (and its directory) when missing. Used to write blocks. */
  FileChannel open(Path file) throws IOException;

  /**
   * Opens an existing cache data file for reading and writing; never creates it, and fails with
   * {@link java.nio.file.NoSuchFileException} when it is gone (evicted). Used to read published blocks.
   */
  default FileChannel openExisting(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }
}
