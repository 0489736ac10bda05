package io.rubix.spark;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's copy of the driver's executor-host list ({@code spark.rubix.nodes.file}) current,
 * so the file cluster manager of every caching file system and BookKeeper on the node sees the
 * executors the driver sees. Asks the driver on its own daemon thread every refresh interval and
 * rewrites the file only when the driver's list changed; while the driver does not answer the file
 * keeps the last list.
 */
final class NodeListRelay implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeListRelay.class);

  /** The driver end: Spark's {@code PluginContext.ask}. */
  @FunctionalInterface
  interface Driver {
    Object ask(NodeListMessages.Request request) throws Exception;
  }

  private final Path file;
  private final Driver driver;
  private final ScheduledExecutorService timer;
  private long knownVersion = -1;
  private boolean failing;

  NodeListRelay(Path file, Driver driver) {
    this.file = requireNonNull(file, "file is null");
    this.driver = requireNonNull(driver, "driver is null");
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "rubix-node-list-relay");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Refreshes now and then every {@code interval}. */
  void start(Duration interval) {
    long millis = Math.max(1, interval.toMillis());
    timer.scheduleWithFixedDelay(this::refresh, 0, millis, TimeUnit.MILLISECONDS);
  }

  /** One round: ask the driver, write the file when the list changed. Never throws. */
  synchronized void refresh() {
    try {
      Object reply = driver.ask(new NodeListMessages.Request(knownVersion));
      if (!(reply instanceof NodeListMessages.Answer answer)) {
        throw new IllegalStateException("the driver answered " + reply);
      }
      if (answer.version() != knownVersion) {
        NodeListFile.write(file, answer.hosts());
        knownVersion = answer.version();
        LOG.info("RubiX executor hosts (version {}): {}", answer.version(), answer.hosts());
      }
      if (failing) {
        LOG.info("The RubiX driver plugin answers again");
        failing = false;
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        return;
      }
      if (!failing) {
        LOG.warn("Could not refresh the RubiX executor host list from the driver; {} keeps the last list", file, e);
        failing = true;
      }
    }
  }

  /** The driver's list version last written (-1: none yet). */
  synchronized long knownVersion() {
    return knownVersion;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
