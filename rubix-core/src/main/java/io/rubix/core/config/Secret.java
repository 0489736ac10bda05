package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

/** A password or token: its {@link #toString()} never shows the value, so it cannot leak into logs or exceptions. */
public final class Secret {
  private final String value;

  public Secret(String value) {
    this.value = requireNonNull(value, "value is null");
  }

  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "[redacted]";
  }
}
