package io.rubix.bookkeeper;

import java.util.Map;

/** JMX view of the BookKeeper daemon ({@code io.rubix:type=BookKeeper}). */
public interface BookKeeperStatsMXBean {
  Map<String, Long> getCounters();

  long getCacheUsedBytes();

  long getCacheCapacityBytes();

  long getEvictions();

  long getRecoveredBlocks();
}
