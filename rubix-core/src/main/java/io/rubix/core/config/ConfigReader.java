package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.config.ConfigKey;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/** Typed, validated reads of {@link ConfigKey}s from a Hadoop {@link Configuration}. */
public final class ConfigReader {
  private final Configuration conf;

  public ConfigReader(Configuration conf) {
    this.conf = requireNonNull(conf, "conf is null");
  }

  public String raw(ConfigKey key) {
    String value = conf.getTrimmed(key.name());
    return value == null || value.isEmpty() ? key.defaultValue() : value;
  }

  public boolean isSet(ConfigKey key) {
    String value = conf.getTrimmed(key.name());
    return value != null && !value.isEmpty();
  }

  public boolean getBoolean(ConfigKey key) {
    String value = raw(key).toLowerCase(Locale.ROOT);
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new InvalidConfigException(key, value, "true or false");
    };
  }

  public long getLong(ConfigKey key, long min, long max) {
    String value = raw(key);
    long parsed;
    try {
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new InvalidConfigException(key, value, "an integer in [" + min + ", " + max + "]");
    }
    if (parsed < min || parsed > max) {
      throw new InvalidConfigException(key, value, "an integer in [" + min + ", " + max + "]");
    }
    return parsed;
  }

  public int getInt(ConfigKey key, int min, int max) {
    return (int) getLong(key, min, max);
  }

  /** A size such as {@code 1048576}, {@code 64k}, {@code 1m}, {@code 10g}; {@code -1} when unset without default. */
  public long getBytes(ConfigKey key, long min, long max) {
    String value = raw(key);
    if (value == null) {
      return -1;
    }
    String allowed = "a size in bytes, optionally with a k/m/g/t suffix, in [" + min + ", " + max + "]";
    long parsed = parseBytes(value).orElseThrow(() -> new InvalidConfigException(key, value, allowed));
    if (parsed < min || parsed > max) {
      throw new InvalidConfigException(key, value, allowed);
    }
    return parsed;
  }

  public Duration getDuration(ConfigKey key, Duration min) {
    String value = raw(key);
    String allowed = "a duration such as 500ms, 30s, 5m, 1h (at least " + min.toMillis() + "ms)";
    long millis;
    try {
      Configuration single = new Configuration(false);
      single.set("v", value);
      millis = single.getTimeDuration("v", -1, TimeUnit.MILLISECONDS);
    } catch (NumberFormatException e) {
      throw new InvalidConfigException(key, value, allowed);
    }
    if (millis < min.toMillis()) {
      throw new InvalidConfigException(key, value, allowed);
    }
    return Duration.ofMillis(millis);
  }

  public <E extends Enum<E> & ConfigEnum> E getEnum(ConfigKey key, Class<E> type) {
    String value = raw(key);
    for (E constant : type.getEnumConstants()) {
      if (constant.configName().equalsIgnoreCase(value)) {
        return constant;
      }
    }
    throw new InvalidConfigException(key, value, "one of " + Arrays.stream(type.getEnumConstants()).map(ConfigEnum::configName).toList());
  }

  public List<String> getList(ConfigKey key) {
    String value = raw(key);
    if (value == null) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /**
   * A password or token from Hadoop's credential providers ({@code hadoop.security.credential.provider.path}),
   * else from the configuration; empty when neither has it. A failing provider is named, the value never.
   */
  public Optional<Secret> secret(ConfigKey key) {
    char[] value;
    try {
      value = conf.getPassword(key.name());
    } catch (IOException e) {
      // the message of a credential provider failure does not contain the secret
      throw new InvalidConfigException(key, "[redacted]", "a value readable from the credential providers (" + e.getMessage() + ")");
    }
    if (value == null) {
      return Optional.empty();
    }
    String text = new String(value).trim();
    return text.isEmpty() ? Optional.empty() : Optional.of(new Secret(text));
  }

  static OptionalLong parseBytes(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (v.endsWith("b")) {
      v = v.substring(0, v.length() - 1);
    }
    long multiplier = 1;
    if (!v.isEmpty()) {
      switch (v.charAt(v.length() - 1)) {
        case 'k' -> multiplier = 1L << 10;
        case 'm' -> multiplier = 1L << 20;
        case 'g' -> multiplier = 1L << 30;
        case 't' -> multiplier = 1L << 40;
        default -> multiplier = 1;
      }
      if (multiplier != 1) {
        v = v.substring(0, v.length() - 1);
      }
    }
    try {
      return OptionalLong.of(Math.multiplyExact(Long.parseLong(v.trim()), multiplier));
    } catch (NumberFormatException | ArithmeticException e) {
      return OptionalLong.empty();
    }
  }

  /** An enum whose constants have a lower-case, dashed name in config files. */
  public interface ConfigEnum {
    String configName();
  }
}
