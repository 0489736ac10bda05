package io.rubix.core.client;

import java.io.IOException;

/**
 * The BookKeeper does not know a call (an older daemon): the connection is fine and other calls go
 * on; the caller stops making this one. Unlike a transport failure it starts no backoff, so reads are
 * not sent to the source because of it.
 */
public final class UnknownCallException extends IOException {
  private static final long serialVersionUID = 1L;

  public UnknownCallException(String message, Throwable cause) {
    super(message, cause);
  }
}
