package io.rubix.core.client;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/**
 * Starts a BookKeeper inside this JVM for {@code rubix.bookkeeper.embedded=true}. Implemented by
 * rubix-bookkeeper (which depends on this module) and found with {@link java.util.ServiceLoader};
 * {@link InProcessBookKeepers#reach} starts at most one per JVM and port.
 */
public interface InProcessBookKeeper {
  /**
   * Starts a BookKeeper configured by {@code conf}, serving until this JVM exits.
   *
   * @return how this JVM's file systems reach it: {@code client} with the started BookKeeper's host and port
   * @throws IOException when it cannot start (a port is taken, a cache directory is unusable)
   */
  ClientConfig start(Configuration conf, ClientConfig client) throws IOException;
}
