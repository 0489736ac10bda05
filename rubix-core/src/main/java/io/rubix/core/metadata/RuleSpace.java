package io.rubix.core.metadata;

import io.rubix.spi.ObjectVersion;
import java.util.LinkedHashMap;

/**
 * Space accounting and LRU order of the objects of one path rule with a quota, over all disks of the
 * node. Charged exactly as their disks are (see {@link SpaceLedger}): a block when it is granted, a
 * dropped object's charge kept as releasing until its files are truncated and what grantees may still
 * be writing until they are done, so the bytes its objects' files hold never exceed {@link #usedBytes}.
 * Guarded by the owning service's lock.
 */
final class RuleSpace {
  final String name;
  final long quotaBytes;
  /** The rule's objects, least recently used first. */
  final LinkedHashMap<ObjectVersion, CachedObject> lru = new LinkedHashMap<>(16, 0.75f, true);
  /** Charged bytes, including {@link #releasingBytes} and charges left over by files that could not be deleted. */
  long usedBytes;
  /** Bytes of dropped objects of this rule whose files are not truncated yet. */
  long releasingBytes;
  /** Objects evicted to keep this rule within its quota. */
  long evictions;
  /** Blocks and objects refused because they did not fit the quota even after evicting the rule's other objects. */
  long denials;

  RuleSpace(String name, long quotaBytes) {
    this.name = name;
    this.quotaBytes = quotaBytes;
  }
}
