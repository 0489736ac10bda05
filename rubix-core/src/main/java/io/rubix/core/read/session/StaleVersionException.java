package io.rubix.core.read.session;

import java.io.IOException;

/** The source no longer has the object version a read names: it was overwritten or deleted since the version was taken. */
public final class StaleVersionException extends IOException {
  private static final long serialVersionUID = 1L;

  public StaleVersionException(String message) {
    super(message);
  }

  public StaleVersionException(String message, Throwable cause) {
    super(message, cause);
  }
}
