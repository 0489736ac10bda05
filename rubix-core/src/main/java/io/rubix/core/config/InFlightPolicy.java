package io.rubix.core.config;

/** What a reader does with a block someone else is fetching. See {@code rubix.cache.inflight.policy}. */
public enum InFlightPolicy implements ConfigReader.ConfigEnum {
  WAIT("wait"),
  SOURCE("source");

  private final String configName;

  InFlightPolicy(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
