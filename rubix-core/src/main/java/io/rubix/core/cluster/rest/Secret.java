package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

/** A password or token: its {@link #toString()} never shows the value, so it cannot leak into logs or exceptions. */
final class Secret {
  private final String value;

  Secret(String value) {
    this.value = requireNonNull(value, "value is null");
  }

  String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "[redacted]";
  }
}
