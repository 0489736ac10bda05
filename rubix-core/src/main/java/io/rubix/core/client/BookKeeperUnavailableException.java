package io.rubix.core.client;

import java.io.IOException;

/** The BookKeeper daemon cannot be reached now (down, slow, or backing off after failures). */
public final class BookKeeperUnavailableException extends IOException {
  private static final long serialVersionUID = 1L;

  public BookKeeperUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
