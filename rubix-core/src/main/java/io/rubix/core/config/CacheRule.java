package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/** One named path rule of {@code rubix.cache.rules}: its globs, whether it caches what they match, and its optional quota. */
public record CacheRule(String name, List<PathGlob> paths, RuleAction action, Optional<RuleQuota> quota) {
  public CacheRule {
    requireNonNull(name, "name is null");
    paths = List.copyOf(requireNonNull(paths, "paths is null"));
    requireNonNull(action, "action is null");
    requireNonNull(quota, "quota is null");
    if (paths.isEmpty()) {
      throw new IllegalArgumentException("rule " + name + " has no paths");
    }
    if (action == RuleAction.EXCLUDE && quota.isPresent()) {
      throw new IllegalArgumentException("exclude rule " + name + " has a quota");
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
