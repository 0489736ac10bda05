package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.PeerFetchKeys;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;

/**
 * Settings of peer fetches: an owner fetching blocks from the source for the peers that ask it
 * (server side), and how readers use owners (fill requests, read-ahead).
 *
 * @param enabled whether owners fetch for peers (server) and readers ask them to (client)
 * @param threads fills an owner runs at once
 * @param timeout longest an owner fills before it answers NOT_CACHED; readers wait this much longer for an answer
 * @param maxBytes most bytes one request may make an owner fetch
 * @param schemes URI schemes an owner fetches, lower case
 * @param readAheadMax how far ahead of a sequential reader blocks owned elsewhere are fetched from their owners, in bytes
 */
public record PeerFetchConfig(boolean enabled, int threads, Duration timeout, long maxBytes, Set<String> schemes, long readAheadMax) {
  public PeerFetchConfig {
    requireNonNull(timeout, "timeout is null");
    schemes = Set.copyOf(requireNonNull(schemes, "schemes is null"));
  }

  public static PeerFetchConfig from(Configuration conf) {
    ConfigReader reader = new ConfigReader(conf);
    Set<String> schemes = reader.getList(PeerFetchKeys.FETCH_SCHEMES).stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    if (schemes.contains("file")) {
      throw new InvalidConfigException(PeerFetchKeys.FETCH_SCHEMES, reader.raw(PeerFetchKeys.FETCH_SCHEMES),
          "remote schemes only: file would let peers read this node's local files");
    }
    return new PeerFetchConfig(
        reader.getBoolean(PeerFetchKeys.FETCH_ENABLED),
        reader.getInt(PeerFetchKeys.FETCH_THREADS, 1, 256),
        reader.getDuration(PeerFetchKeys.FETCH_TIMEOUT, Duration.ofMillis(1)),
        reader.getBytes(PeerFetchKeys.FETCH_MAX_SIZE, 1, 1L << 30),
        schemes,
        reader.getBytes(PeerFetchKeys.READAHEAD_MAX, 0, 1L << 30));
  }

  /** Whether an owner fetches objects of {@code path}'s scheme. */
  public boolean fetches(String path) {
    int colon = path.indexOf(':');
    return colon > 0 && schemes.contains(path.substring(0, colon).toLowerCase(Locale.ROOT));
  }
}
