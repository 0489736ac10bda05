package io.rubix.core.config;

/** Which blocks a node caches ({@code rubix.cache.admission}). */
public enum Admission implements ConfigReader.ConfigEnum {
  /** Only blocks of splits this node owns; reads of other blocks go to the source. */
  OWNER_ONLY("owner-only"),
  /** Every block read through this node. */
  ALL("all");

  private final String configName;

  Admission(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
