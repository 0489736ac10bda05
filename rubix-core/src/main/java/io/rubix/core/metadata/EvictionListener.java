package io.rubix.core.metadata;

import java.nio.file.Path;

/** Told when a data file is unpublished, before it is deleted, so open handles to it can be closed. */
@FunctionalInterface
public interface EvictionListener {
  void evicted(Path dataFile);
}
