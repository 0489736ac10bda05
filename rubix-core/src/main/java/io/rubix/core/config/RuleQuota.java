package io.rubix.core.config;

import io.rubix.spi.config.ConfigKey;
import java.util.OptionalLong;

/**
 * A rule's quota ({@code rubix.cache.rule.<name>.quota}): a size in bytes, or a percentage of the
 * node's total cap (the sum of its cache directories' caps), resolved by the metadata service that
 * knows the caps.
 */
public record RuleQuota(long bytes, int percent) {
  static final String ALLOWED = "a size in bytes with an optional k/m/g/t suffix (e.g. 20g) or a percentage of the node's cache from 1% to 100% (e.g. 15%)";

  public RuleQuota {
    if ((bytes > 0) == (percent > 0) || bytes < 0 || percent < 0 || percent > 100) {
      throw new IllegalArgumentException("a quota is either bytes or a percentage in [1, 100]: bytes " + bytes + ", percent " + percent);
    }
  }

  static RuleQuota parse(ConfigKey key, String value) {
    String v = value.trim();
    if (v.endsWith("%")) {
      int percent;
      try {
        percent = Integer.parseInt(v.substring(0, v.length() - 1).trim());
      } catch (NumberFormatException e) {
        throw new InvalidConfigException(key, value, ALLOWED);
      }
      if (percent < 1 || percent > 100) {
        throw new InvalidConfigException(key, value, ALLOWED);
      }
      return new RuleQuota(0, percent);
    }
    OptionalLong bytes = ConfigReader.parseBytes(v);
    if (bytes.isEmpty() || bytes.getAsLong() < 1) {
      throw new InvalidConfigException(key, value, ALLOWED);
    }
    return new RuleQuota(bytes.getAsLong(), 0);
  }

  /** The quota in bytes on a node whose cache directories' caps add up to {@code totalCapacity}. */
  public long bytesOf(long totalCapacity) {
    return percent > 0 ? totalCapacity / 100 * percent + totalCapacity % 100 * percent / 100 : bytes;
  }

  @Override
  public String toString() {
    return percent > 0 ? percent + "%" : Long.toString(bytes);
  }
}
