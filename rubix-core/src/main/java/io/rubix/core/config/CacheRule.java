package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * One named path rule of {@code rubix.cache.rules}: its globs, whether it caches what they match, its
 * optional quota, and its optional freshness (else the file system's {@code rubix.cache.freshness}).
 */
public record CacheRule(String name, List<PathGlob> paths, RuleAction action, Optional<RuleQuota> quota, Optional<Freshness> freshness) {
  public CacheRule {
    requireNonNull(name, "name is null");
    paths = List.copyOf(requireNonNull(paths, "paths is null"));
    requireNonNull(action, "action is null");
    requireNonNull(quota, "quota is null");
    requireNonNull(freshness, "freshness is null");
    if (paths.isEmpty()) {
      throw new IllegalArgumentException("rule " + name + " has no paths");
    }
    if (action == RuleAction.EXCLUDE && (quota.isPresent() || freshness.isPresent())) {
      throw new IllegalArgumentException("exclude rule " + name + " has a quota or a freshness");
    }
  }

  boolean matches(String qualifiedPath, String pathOnly) {
    for (PathGlob glob : paths) {
      if (glob.matches(qualifiedPath, pathOnly)) {
        return true;
      }
    }
    return false;
  }
}
