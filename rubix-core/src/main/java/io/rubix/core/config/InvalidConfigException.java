package io.rubix.core.config;

import io.rubix.spi.config.ConfigKey;

/** A configuration value that cannot be used; the message names the key, the value and what is allowed. */
public final class InvalidConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public InvalidConfigException(ConfigKey key, String value, String allowed) {
    this(key.name(), value, allowed);
  }

  public InvalidConfigException(String key, String value, String allowed) {
    super("Invalid value '" + value + "' for " + key + ": allowed " + allowed);
  }
}
