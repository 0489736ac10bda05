package io.rubix.core.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens cache data files. Replaced in tests to inject disk faults. */
@FunctionalInterface
public interface ChannelOpener {
  /** Opens with {@link FileChannel#open}: read-write, never created. */
  ChannelOpener DEFAULT = file -> FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);

  /**
   * Opens an existing cache data file for reading and writing. Never creates it: the metadata service
   * creates a data file when it first grants a lease on the object,
   * so a file that is missing was evicted, and this fails with {@link java.nio.file.NoSuchFileException}.
   */
  FileChannel open(Path file) throws IOException;
}
