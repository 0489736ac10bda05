package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

/**
 * One path rule's quota and use at one moment: bytes charged to its objects (including those of
 * dropped objects not yet released), its objects, objects evicted to keep it within its quota, and
 * grants denied because even that was not enough.
 */
public record RuleUsage(String rule, long quotaBytes, long usedBytes, int objects, long evictions, long denials) {
  public RuleUsage {
    requireNonNull(rule, "rule is null");
  }
}
