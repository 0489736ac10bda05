package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.ConfigKey;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;

/**
 * The ordered path rules of {@code rubix.cache.rules}: the first rule with a glob matching an
 * object's path decides whether it is cached and which quota it is charged to; a path matching none
 * follows {@link #defaultAction}. The same in embedded mode, in a client of the daemon (which skips
 * the daemon for excluded paths) and in the daemon (which refuses grants for them whatever a client
 * asks). Immutable and thread-safe.
 */
public record CacheRules(List<CacheRule> rules, RuleAction defaultAction) {
  /** No rules: everything is cached. */
  public static final CacheRules NONE = new CacheRules(List.of(), RuleAction.INCLUDE);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  public CacheRules {
    rules = List.copyOf(requireNonNull(rules, "rules is null"));
    requireNonNull(defaultAction, "defaultAction is null");
  }

  /** The rules {@code conf} sets, alone (as {@link CacheConfig#rules()}, without the rest of the cache's settings). */
  public static CacheRules from(Configuration conf) {
    return from(new ConfigReader(conf));
  }

  /** Reads and validates the rules; an {@link InvalidConfigException} names the key, its value and what is allowed. */
  static CacheRules from(ConfigReader reader) {
    RuleAction defaultAction = reader.getEnum(CacheKeys.RULES_DEFAULT, RuleAction.class);
    Set<String> names = new HashSet<>();
    List<String> listed = reader.getList(CacheKeys.RULES);
    for (String name : listed) {
      if (!NAME.matcher(name).matches()) {
        throw new InvalidConfigException(CacheKeys.RULES, reader.raw(CacheKeys.RULES), "comma-separated rule names of 1 to 64 letters, digits, _ or - ('"
            + name + "' is not one)");
      }
      if (!names.add(name)) {
        throw new InvalidConfigException(CacheKeys.RULES, reader.raw(CacheKeys.RULES), "each rule name once ('" + name + "' is listed twice)");
      }
    }
    List<CacheRule> rules = new ArrayList<>();
    for (String name : listed) {
      rules.add(rule(reader, name));
    }
    return new CacheRules(rules, defaultAction);
  }

  private static CacheRule rule(ConfigReader reader, String name) {
    ConfigKey pathsKey = resolved(CacheKeys.RULE_PATHS, name);
    List<String> patterns = reader.getList(pathsKey);
    if (patterns.isEmpty()) {
      throw new InvalidConfigException(pathsKey, "", "one or more comma-separated globs, each " + PathGlob.SYNTAX + " (rule " + name + " is listed in "
          + CacheKeys.RULES.name() + ")");
    }
    List<PathGlob> globs = new ArrayList<>();
    for (String pattern : patterns) {
      globs.add(PathGlob.parse(pathsKey.name(), pattern));
    }
    RuleAction action = reader.getEnum(resolved(CacheKeys.RULE_ACTION, name), RuleAction.class);
    ConfigKey quotaKey = resolved(CacheKeys.RULE_QUOTA, name);
    Optional<RuleQuota> quota = Optional.empty();
    if (reader.isSet(quotaKey)) {
      if (action == RuleAction.EXCLUDE) {
        throw new InvalidConfigException(quotaKey, reader.raw(quotaKey), "no quota on an exclude rule (" + resolved(CacheKeys.RULE_ACTION, name).name()
            + "=exclude caches nothing): remove it or make the rule include");
      }
      quota = Optional.of(RuleQuota.parse(quotaKey, reader.raw(quotaKey)));
    }
    ConfigKey freshnessKey = resolved(CacheKeys.RULE_FRESHNESS, name);
    Optional<Freshness> freshness = Optional.empty();
    if (reader.isSet(freshnessKey)) {
      if (action == RuleAction.EXCLUDE) {
        throw new InvalidConfigException(freshnessKey, reader.raw(freshnessKey), "no freshness on an exclude rule (its objects are read from the"
            + " source, never cached): remove it or make the rule include");
      }
      freshness = Optional.of(reader.getEnum(freshnessKey, Freshness.class));
    }
    return new CacheRule(name, globs, action, quota, freshness);
  }

  private static ConfigKey resolved(ConfigKey key, String rule) {
    return new ConfigKey(key.forRule(rule), key.defaultValue(), key.description());
  }

  /** The first rule matching {@code qualifiedPath} (an object version's fully qualified path), or empty when none does. */
  public Optional<CacheRule> match(String qualifiedPath) {
    if (rules.isEmpty()) {
      return Optional.empty();
    }
    String pathOnly = PathGlob.pathOnly(qualifiedPath);
    for (CacheRule rule : rules) {
      if (rule.matches(qualifiedPath, pathOnly)) {
        return Optional.of(rule);
      }
    }
    return Optional.empty();
  }

  /** Whether objects at {@code qualifiedPath} may be cached: the action of the first matching rule, else the default. */
  public boolean caches(String qualifiedPath) {
    if (rules.isEmpty()) {
      return defaultAction == RuleAction.INCLUDE;
    }
    return match(qualifiedPath).map(CacheRule::action).orElse(defaultAction) == RuleAction.INCLUDE;
  }

  /** The freshness of objects at {@code qualifiedPath}: the first matching rule's, else {@code otherwise}. */
  public Freshness freshness(String qualifiedPath, Freshness otherwise) {
    if (rules.isEmpty()) {
      return otherwise;
    }
    return match(qualifiedPath).flatMap(CacheRule::freshness).orElse(otherwise);
  }

  /** The freshness modes the rules set, besides the file system's own. */
  public Set<Freshness> ruleFreshness() {
    Set<Freshness> modes = EnumSet.noneOf(Freshness.class);
    rules.forEach(rule -> rule.freshness().ifPresent(modes::add));
    return modes;
  }

  /** Whether any rule has a quota. */
  public boolean hasQuotas() {
    return rules.stream().anyMatch(rule -> rule.quota().isPresent());
  }
}
