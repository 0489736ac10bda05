package io.rubix.core.insight;

import static java.util.Objects.requireNonNull;

/** Bytes of published blocks one cached object version of {@code path} holds. */
public record CachedBytes(String path, long bytes) {
  public CachedBytes {
    requireNonNull(path, "path is null");
  }
}
