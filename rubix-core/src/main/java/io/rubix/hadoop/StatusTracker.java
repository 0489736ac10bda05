package io.rubix.hadoop;

import static java.util.Objects.requireNonNull;

import io.rubix.core.compat.HadoopApi;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.CacheRules;
import io.rubix.core.config.Freshness;
import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * Decides which version of an object an open reads, per the {@link Freshness} of its path (the first
 * matching rule's {@code rubix.cache.rule.<name>.freshness}, else {@code rubix.cache.freshness}): strict
 * asks the source unless the engine handed over a status, ttl trusts a status seen recently, immutable
 * trusts the first status of a path for good.
 */
final class StatusTracker {
  /** Asks the source for a path's current status (a HEAD on object stores). */
  @FunctionalInterface
  interface StatusLookup {
    FileStatus lookup(Path path) throws IOException;
  }

  private final Freshness freshness;
  private final CacheRules rules;
  /** The statuses each freshness mode in use trusts, kept apart: a ttl path's status expires, an immutable one's does not. */
  private final Map<Freshness, RecentStatuses<Path>> recent = new EnumMap<>(Freshness.class);

  StatusTracker(CacheConfig config) {
    this.freshness = config.freshness();
    this.rules = config.rules();
    Set<Freshness> modes = EnumSet.of(freshness);
    modes.addAll(rules.ruleFreshness());
    for (Freshness mode : modes) {
      recent.put(mode, RecentStatuses.of(config, mode));
    }
  }

  /** The freshness of objects at {@code path} (qualified): what an open passes to the calls below, matched once. */
  Freshness freshness(Path path) {
    return rules.freshness(path.toString(), freshness);
  }

  private RecentStatuses<Path> recent(Path path) {
    return recent.get(freshness(path));
  }

  /**
   * The status to read {@code path}, of {@code freshness}, at: {@code given} when the caller passed one,
   * else a recent one when the freshness mode allows it (in immutable mode a length the caller passed is
   * enough), else the source's answer.
   */
  FileStatus resolve(Path path, Freshness freshness, FileStatus given, long knownLength, StatusLookup lookup) throws IOException {
    requireNonNull(path, "path is null");
    RecentStatuses<Path> trusted = recent.get(freshness);
    if (given != null) {
      trusted.put(path, given);
      return given;
    }
    FileStatus known = trusted.get(path);
    if (known != null) {
      return known;
    }
    if (freshness == Freshness.IMMUTABLE && knownLength >= 0) {
      return new FileStatus(knownLength, false, 1, 0, 0, path);
    }
    FileStatus status = lookup.lookup(path);
    trusted.put(path, status);
    return status;
  }

  /**
   * The status an open of {@code path} would trust now without asking the source, or null (always in
   * strict mode). A caller that asks for a file's status right after opening it (ORC reads the length
   * this way) so gets the version its stream reads, without a second HEAD.
   */
  FileStatus known(Path path) {
    return recent(path).get(path);
  }

  /**
   * Keeps {@code status}, the source's answer for {@code path} outside an open (a {@code getFileStatus}),
   * as an open's lookup would: trusted by ttl and immutable paths, ignored by strict ones and for
   * directories.
   */
  void seen(Path path, FileStatus status) {
    requireNonNull(status, "status is null");
    if (status.isFile()) {
      recent(path).put(path, status);
    }
  }

  /** Whether objects of {@code freshness} may change under a version this tracker resolved: not immutable ones, as the user says. */
  static boolean versionsMayChange(Freshness freshness) {
    return freshness != Freshness.IMMUTABLE;
  }

  /** Forgets what is known about {@code path}, after it was written, renamed or deleted through this file system. */
  void forget(Path path) {
    recent.values().forEach(statuses -> statuses.forget(path));
  }

  /** Forgets {@code path} and every path under it (a directory renamed or deleted through this file system). */
  void forgetTree(Path path) {
    String prefix = path.toString().endsWith("/") ? path.toString() : path + "/";
    recent.values().forEach(statuses -> statuses.forgetIf(p -> p.equals(path) || p.toString().startsWith(prefix)));
  }

  /** The version key of the object {@code status} describes, of {@code freshness}. When immutable, the path and length identify it. */
  static ObjectVersion versionOf(Path qualifiedPath, Freshness freshness, FileStatus status) {
    if (freshness == Freshness.IMMUTABLE) {
      return ObjectVersion.ofPathAndLength(qualifiedPath.toString(), status.getLen());
    }
    String etag = HadoopApi.etagOf(status);
    if (etag == null) {
      etag = "";
    }
    return new ObjectVersion(qualifiedPath.toString(), status.getLen(), status.getModificationTime(), etag);
  }
}
