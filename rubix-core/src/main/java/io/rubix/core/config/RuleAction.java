package io.rubix.core.config;

/** What a path rule does with the objects it matches ({@code rubix.cache.rule.<name>.action}, {@code rubix.cache.rules.default}). */
public enum RuleAction implements ConfigReader.ConfigEnum {
  /** Cached, charged to the rule's quota if it has one. */
  INCLUDE("include"),
  /** Never cached: read from the source, no grant, no space. */
  EXCLUDE("exclude");

  private final String configName;

  RuleAction(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
