package io.rubix.core.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** Opens a cache data file for reading and writing, creating it when missing. Replaced in tests to inject disk faults. */
@FunctionalInterface
public interface ChannelOpener {
  FileChannel open(Path file) throws IOException;
}
