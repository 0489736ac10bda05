package io.rubix.core.config;

/** How an open learns which version of an object it reads. See {@code rubix.cache.freshness}. */
public enum Freshness implements ConfigReader.ConfigEnum {
  STRICT("strict"),
  TTL("ttl"),
  IMMUTABLE("immutable");

  private final String configName;

  Freshness(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
