package io.rubix.spi.config;

import static java.util.Objects.requireNonNull;

/**
 * One configuration key: its name, its default as written in a config file ({@code null} when the
 * key has no default), and what it means. Every key RubiX reads is declared once as a constant of
 * this type and listed in {@code docs/configuration.md}.
 */
public record ConfigKey(String name, String defaultValue, String description) {
  public ConfigKey {
    requireNonNull(name, "name is null");
    requireNonNull(description, "description is null");
    if (!name.startsWith("rubix.")) {
      throw new IllegalArgumentException("RubiX keys start with 'rubix.': " + name);
    }
  }

  /** A key with a {@code <scheme>} placeholder, resolved for one scheme. */
  public String forScheme(String scheme) {
    return name.replace("<scheme>", scheme);
  }

  /** A key with a {@code <name>} placeholder, resolved for one named rule. */
  public String forRule(String rule) {
    return name.replace("<name>", rule);
  }
}
