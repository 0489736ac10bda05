package io.rubix.core.cluster;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.ClusterKeys;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;

/**
 * When a node that failed is left out of the ring and how it is probed, read from a Hadoop
 * {@link Configuration} and validated.
 *
 * @param downDuration the least time a failed node stays out of the ring
 * @param probeInterval the wait between probes of a down node, doubled after each failed probe
 * @param probeMaxInterval the longest wait between probes
 * @param probePort the port probes connect to: the data-transfer port peers read from, or 0 for the
 *     port of the node's list entry (when the transfer port is not a fixed one)
 * @param probeTimeout connect timeout of one probe
 * @param checkInterval how often every live node is probed although no read failed; 0: never
 */
public record LivenessConfig(Duration downDuration, Duration probeInterval, Duration probeMaxInterval, int probePort, Duration probeTimeout,
    Duration checkInterval) {
  public LivenessConfig {
    requireNonNull(checkInterval, "checkInterval is null");
    if (checkInterval.isNegative()) {
      throw new IllegalArgumentException("checkInterval must not be negative: " + checkInterval);
    }
    requireNonNull(downDuration, "downDuration is null");
    requireNonNull(probeInterval, "probeInterval is null");
    requireNonNull(probeMaxInterval, "probeMaxInterval is null");
    requireNonNull(probeTimeout, "probeTimeout is null");
    if (downDuration.isNegative() || probeInterval.isNegative() || probeInterval.isZero() || probeTimeout.isNegative() || probeTimeout.isZero()) {
      throw new IllegalArgumentException("Durations must be positive (down duration may be 0): " + downDuration + ", " + probeInterval + ", " + probeTimeout);
    }
    if (probeMaxInterval.compareTo(probeInterval) < 0) {
      throw new IllegalArgumentException("probeMaxInterval " + probeMaxInterval + " is shorter than probeInterval " + probeInterval);
    }
    if (probePort < 0 || probePort > 65535) {
      throw new IllegalArgumentException("probePort must be 0-65535: " + probePort);
    }
  }

  /** No periodic checks of live nodes. */
  public LivenessConfig(Duration downDuration, Duration probeInterval, Duration probeMaxInterval, int probePort, Duration probeTimeout) {
    this(downDuration, probeInterval, probeMaxInterval, probePort, probeTimeout, Duration.ZERO);
  }

  public static LivenessConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    Duration interval = reader.getDuration(ClusterKeys.LIVENESS_PROBE_INTERVAL, Duration.ofMillis(10));
    Duration maxInterval = reader.getDuration(ClusterKeys.LIVENESS_PROBE_MAX_INTERVAL, Duration.ofMillis(10));
    if (maxInterval.compareTo(interval) < 0) {
      throw new InvalidConfigException(ClusterKeys.LIVENESS_PROBE_MAX_INTERVAL, reader.raw(ClusterKeys.LIVENESS_PROBE_MAX_INTERVAL),
          "a duration at least " + ClusterKeys.LIVENESS_PROBE_INTERVAL.name() + " (" + interval.toMillis() + "ms)");
    }
    int transferPort = reader.getInt(BookKeeperKeys.TRANSFER_SERVER_PORT, -1, 65535);
    return new LivenessConfig(
        reader.getDuration(ClusterKeys.LIVENESS_DOWN_DURATION, Duration.ZERO),
        interval,
        maxInterval,
        Math.max(0, transferPort),
        reader.getDuration(BookKeeperKeys.TRANSFER_TIMEOUT, Duration.ofMillis(1)),
        reader.getDuration(ClusterKeys.LIVENESS_CHECK_INTERVAL, Duration.ZERO));
  }

  /** The wait before the probe that follows {@code failedProbes} failed ones: the interval doubled that often, at most the maximum. */
  public Duration probeDelay(int failedProbes) {
    Duration delay = probeInterval;
    for (int i = 0; i < failedProbes && delay.compareTo(probeMaxInterval) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(probeMaxInterval) > 0 ? probeMaxInterval : delay;
  }
}
