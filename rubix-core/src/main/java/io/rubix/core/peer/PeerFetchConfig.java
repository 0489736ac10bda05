package io.rubix.core.peer;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.PeerFetchKeys;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

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
 * @param authorities authorities an owner fetches from, lower case: {@code scheme://authority} for one
 *     scheme, a bare authority (bucket, host[:port]) for every fetched scheme, {@link #ANY_AUTHORITY} for any
 */
public record PeerFetchConfig(boolean enabled, int threads, Duration timeout, long maxBytes, Set<String> schemes, long readAheadMax,
    Set<String> authorities) {
  /** In {@link #authorities}: every authority of the fetched schemes. */
  public static final String ANY_AUTHORITY = "*";
  private static final Pattern PER_BUCKET_KEY = Pattern.compile("fs\\.([a-z0-9]+)\\.bucket\\.([^.]+)\\..+");

  public PeerFetchConfig {
    requireNonNull(timeout, "timeout is null");
    schemes = Set.copyOf(requireNonNull(schemes, "schemes is null"));
    authorities = Set.copyOf(requireNonNull(authorities, "authorities is null"));
  }

  /** Settings that fetch from any authority of {@code schemes} (tests, and readers, which do not fetch). */
  public PeerFetchConfig(boolean enabled, int threads, Duration timeout, long maxBytes, Set<String> schemes, long readAheadMax) {
    this(enabled, threads, timeout, maxBytes, schemes, readAheadMax, Set.of(ANY_AUTHORITY));
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
        reader.getBytes(PeerFetchKeys.READAHEAD_MAX, 0, 1L << 30),
        allowedAuthorities(conf, reader, schemes));
  }

  /** The configured authorities, or when unset the ones {@code conf} names for {@code schemes} (see the key). */
  private static Set<String> allowedAuthorities(Configuration conf, ConfigReader reader, Set<String> schemes) {
    if (reader.raw(PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES) != null) {
      return reader.getList(PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES).stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
    }
    Set<String> named = new HashSet<>();
    String defaultFs = conf.getTrimmed("fs.defaultFS");
    if (defaultFs != null) {
      try {
        URI uri = URI.create(defaultFs);
        if (uri.getScheme() != null && uri.getAuthority() != null && schemes.contains(uri.getScheme().toLowerCase(Locale.ROOT))) {
          named.add((uri.getScheme() + "://" + uri.getAuthority()).toLowerCase(Locale.ROOT));
        }
      } catch (IllegalArgumentException e) {
        // not a URI: names no authority
      }
    }
    for (Map.Entry<String, String> entry : conf) {
      Matcher matcher = PER_BUCKET_KEY.matcher(entry.getKey());
      if (matcher.matches() && schemes.contains(matcher.group(1))) {
        named.add((matcher.group(1) + "://" + matcher.group(2)).toLowerCase(Locale.ROOT));
      }
    }
    return named;
  }

  /** Whether an owner fetches objects of {@code path}: its scheme is fetched and its authority allowed. */
  public boolean fetches(String path) {
    URI uri;
    try {
      // as Hadoop parses it: a path may hold characters a URI may not (spaces)
      uri = new Path(path).toUri();
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (uri.getScheme() == null || !schemes.contains(uri.getScheme().toLowerCase(Locale.ROOT))) {
      return false;
    }
    if (authorities.contains(ANY_AUTHORITY)) {
      return true;
    }
    if (uri.getAuthority() == null) {
      return false;
    }
    String authority = uri.getAuthority().toLowerCase(Locale.ROOT);
    return authorities.contains(authority) || authorities.contains(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + authority);
  }
}
