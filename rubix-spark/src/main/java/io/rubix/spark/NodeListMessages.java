package io.rubix.spark;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.List;

/** What executors ask the driver to keep their copy of the executor-host list current. */
final class NodeListMessages {
  private NodeListMessages() {}

  /** Asks for the list; {@code knownVersion} is the version the executor has (-1: none). */
  record Request(long knownVersion) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /** The driver's list and its version, which grows with every change. */
  record Answer(long version, List<String> hosts) implements Serializable {
    private static final long serialVersionUID = 1L;

    Answer {
      hosts = List.copyOf(requireNonNull(hosts, "hosts is null"));
    }
  }
}
