package io.rubix.bookkeeper;

import java.util.Map;

/** JMX view of the BookKeeper daemon ({@code io.rubix:type=BookKeeper}). */
public interface BookKeeperStatsMXBean {
  Map<String, Long> getCounters();

  long getCacheUsedBytes();

  long getCacheCapacityBytes();

  long getEvictions();

  long getRecoveredBlocks();

  /** The data-transfer port peers read cached blocks from, or -1 when it is off. */
  int getTransferPort();
}
