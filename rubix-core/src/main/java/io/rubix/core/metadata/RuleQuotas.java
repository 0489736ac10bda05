package io.rubix.core.metadata;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.CacheRule;
import io.rubix.core.config.CacheRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The path rules as the metadata service applies them: whether an object version may be cached at
 * all, and the {@link RuleSpace} of the quota it is charged to. Guarded by the owning service's lock
 * (its counters and spaces); the rules themselves are immutable.
 */
final class RuleQuotas {
  private final CacheRules rules;
  private final Map<String, RuleSpace> spaces = new HashMap<>();
  private final List<RuleSpace> ordered = new ArrayList<>();
  /** Grants refused because the path is excluded by a rule. */
  private long excludedRequests;

  /** The quotas of {@code rules} on a node whose cache directories' caps add up to {@code totalCapacity}. */
  RuleQuotas(CacheRules rules, long totalCapacity) {
    this.rules = requireNonNull(rules, "rules is null");
    for (CacheRule rule : rules.rules()) {
      rule.quota().ifPresent(quota -> {
        RuleSpace space = new RuleSpace(rule.name(), quota.bytesOf(totalCapacity));
        spaces.put(rule.name(), space);
        ordered.add(space);
      });
    }
  }

  /** Whether objects at {@code path} may be cached; counts a refusal. */
  boolean admits(String path) {
    if (rules.caches(path)) {
      return true;
    }
    excludedRequests++;
    return false;
  }

  /** Whether objects at {@code path} may be cached, without counting. */
  boolean caches(String path) {
    return rules.caches(path);
  }

  /** The quota objects at {@code path} are charged to, or null when their rule has none. */
  RuleSpace spaceOf(String path) {
    if (spaces.isEmpty()) {
      return null;
    }
    Optional<CacheRule> rule = rules.match(path);
    return rule.isPresent() ? spaces.get(rule.get().name()) : null;
  }

  /** The rules with a quota, in configuration order. */
  List<RuleSpace> spaces() {
    return ordered;
  }

  long excludedRequests() {
    return excludedRequests;
  }
}
