package io.rubix.core.config;

/** When cached blocks are checked against their CRC32C. See {@code rubix.cache.checksum.verify}. */
public enum ChecksumVerification implements ConfigReader.ConfigEnum {
  ALWAYS("always"),
  FIRST_READ("first-read"),
  NEVER("never");

  private final String configName;

  ChecksumVerification(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
