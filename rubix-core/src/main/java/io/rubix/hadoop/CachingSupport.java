package io.rubix.hadoop;

import io.rubix.core.CacheEngine;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.client.InProcessBookKeepers;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.Rendezvous;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.ConflictingCacheException;
import io.rubix.core.config.Freshness;
import io.rubix.core.peer.PeerClient;
import io.rubix.core.peer.PeerConfig;
import io.rubix.core.peer.PeerFetchConfig;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.read.session.BlockAdmission;
import io.rubix.core.read.session.InputBytes;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.PeerFetchKeys;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.AbstractFSBuilderImpl;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read path shared by the delegating {@link CachingFileSystem} and the S3A subclass
 * {@link CachingS3AFileSystem}: resolves the version an open reads and returns a stream that reads
 * through the cache, with each missing range read from the wrapped file system.
 */
final class CachingSupport implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CachingSupport.class);

  /** Opens the wrapped file system's own stream for {@code path} at {@code status}, without a HEAD. */
  @FunctionalInterface
  interface SourceOpener {
    FSDataInputStream open(Path path, FileStatus status) throws IOException;

    /**
     * Whether streams this opens at {@code status} fail when the object is no longer that version
     * (S3A's ETag change detection); when not, a stream checks the status once before using source bytes.
     */
    default boolean detectsChanges(FileStatus status) {
      return false;
    }

    /**
     * Whether a stream this opens, once it seeks, asks the store for exactly the bytes its first read asks
     * for, in one request that the later reads continue (S3A's classic stream with the random policy): a
     * long range can then be read as it arrives ({@link RangeReads}). When not (a stream that would ask
     * for the rest of the object, Hadoop 2.7's or another store's), a range is read with one positioned read.
     */
    default boolean streamsRanges() {
      return false;
    }

    /**
     * The Hadoop statistics the streams this opens count their bytes in, where a stream through the cache
     * counts the bytes it returns ({@link InputBytes}: engines' input metrics); null to count nothing.
     */
    default FileSystem.Statistics statistics() {
      return null;
    }
  }

  private final CacheEngine engine;
  private final StatusTracker tracker;
  private final ClusterLocality locality;

  private CachingSupport(CacheEngine engine, StatusTracker tracker, ClusterLocality locality) {
    this.engine = engine;
    this.tracker = tracker;
    this.locality = locality;
  }

  /**
   * Caching for the file system at {@code uri}, or null when {@code rubix.cache.enabled=false} or when
   * this JVM already has a cache open on the same directories (or BookKeeper port) with other
   * settings: that file system then reads from the source (one WARN), as with other cache failures.
   */
  static CachingSupport create(URI uri, Configuration conf, ChannelOpener opener) {
    CacheConfig config = CacheConfig.from(conf);
    if (!config.enabled()) {
      LOG.info("RubiX caching is disabled for {}", uri);
      return null;
    }
    try {
      return create(uri, conf, config, opener);
    } catch (ConflictingCacheException e) {
      LOG.warn("RubiX caching is off for {}, which reads from the source: {}", uri, e.getMessage());
      return null;
    }
  }

  private static CachingSupport create(URI uri, Configuration conf, CacheConfig config, ChannelOpener opener) {
    String name = uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
    ClientConfig clientConfig = ClientConfig.from(conf);
    if (new ConfigReader(conf).getBoolean(BookKeeperKeys.IN_PROCESS)) {
      clientConfig = InProcessBookKeepers.reach(conf, config, clientConfig);
    }
    ClusterLocality locality = ClusterSetup.locality(conf);
    try {
      // the cluster decides, the reader asks: read depends on cluster, never the other way
      BlockAdmission admission = locality == null || locality.admitsAll() ? BlockAdmission.ALL : locality::admits;
      PeerConfig peerConfig = PeerConfig.from(conf);
      Duration handOff = new ConfigReader(conf).getDuration(PeerFetchKeys.HANDOFF_WINDOW, Duration.ZERO);
      PeerReader peers = locality != null && peerConfig.enabled() && peerConfig.port() > 0
          ? new PeerClient(peerConfig, PeerFetchConfig.from(conf), locality, handOff) : null;
      return new CachingSupport(CacheEngine.create(config, clientConfig, name, opener, admission, peers), new StatusTracker(config), locality);
    } catch (RuntimeException e) {
      if (locality != null) {
        locality.close();
      }
      throw e;
    }
  }

  CacheEngine engine() {
    return engine;
  }

  /**
   * Whether reads of {@code qualified} go through the cache: false, counted in
   * {@code rubix_rule_excluded_opens}, when a path rule ({@code rubix.cache.rules}) excludes it, and
   * the caller then opens the source directly (no status lookup of the cache's, no metadata call).
   */
  boolean caches(Path qualified) {
    if (engine.config().rules().caches(qualified.toString())) {
      return true;
    }
    engine.stats().add(CacheCounter.RULE_EXCLUDED_OPENS, 1);
    return false;
  }

  /** Split ownership, or null with {@code rubix.cluster.manager=none}. */
  ClusterLocality locality() {
    return locality;
  }

  /**
   * One location per split of {@code rubix.cache.filesplit.size} that overlaps {@code [start, start + len)}
   * of the file, with the split's preferred cache nodes as hosts; null when the wrapped file system
   * should answer instead (no cluster manager, no node known yet, a directory).
   */
  BlockLocation[] blockLocations(Path qualified, FileStatus status, long start, long len) {
    if (start < 0 || len < 0) {
      throw new IllegalArgumentException("Invalid start or len parameter: start " + start + ", len " + len + " for " + qualified);
    }
    if (locality == null || !status.isFile() || locality.view().isEmpty()) {
      return null;
    }
    long fileLength = status.getLen();
    if (fileLength <= start) {
      return new BlockLocation[0];
    }
    long splitSize = locality.splitSize();
    long end = len == 0 ? start + 1 : Math.min(fileLength, start + Math.min(len, Long.MAX_VALUE - start));
    long first = start / splitSize;
    long last = (end - 1) / splitSize;
    long pathHash = Rendezvous.pathHash(qualified.toString());
    List<BlockLocation> locations = new ArrayList<>();
    for (long split = first; split <= last; split++) {
      List<ClusterNode> owners = locality.owners(pathHash, split);
      if (owners.isEmpty()) {
        return null;
      }
      String[] hosts = owners.stream().map(ClusterNode::host).toArray(String[]::new);
      String[] names = owners.stream().map(ClusterNode::name).toArray(String[]::new);
      long offset = split * splitSize;
      locations.add(new BlockLocation(names, hosts, offset, Math.min(splitSize, fileLength - offset)));
    }
    return locations.toArray(BlockLocation[]::new);
  }

  /**
   * Opens {@code path} for reading through the cache.
   *
   * @param given a status the caller passed ({@code openFile().withFileStatus()}), or null
   * @param knownLength the length the caller passed ({@code fs.option.openfile.length}), or -1
   * @param lookup how to ask the source for the status when needed
   * @param opener how to open the source for one ranged read
   */
  FSDataInputStream open(Path path, FileStatus given, long knownLength, StatusTracker.StatusLookup lookup, SourceOpener opener)
      throws IOException {
    Freshness freshness = tracker.freshness(path);
    FileStatus status = tracker.resolve(path, freshness, given, knownLength, lookup);
    if (status.isDirectory()) {
      throw new FileNotFoundException("Cannot open directory " + path + " for reading");
    }
    ObjectVersion version = StatusTracker.versionOf(path, freshness, status);
    Source source = new OpenedSource(path, status, opener);
    if (StatusTracker.versionsMayChange(freshness) && !opener.detectsChanges(status)) {
      // the stream's first source read is checked against a fresh status; a stale version is not trusted again
      source = new VersionCheckedSource(source, path, status, lookup, () -> tracker.forget(path));
    }
    return new FSDataInputStream(engine.open(version, source, InputBytes.of(opener.statistics())));
  }

  /**
   * Opens {@code path} for {@code openFile()}, as Hadoop's own stores do: a mandatory option not in
   * {@code knownKeys} fails the call with an {@link IllegalArgumentException}, a length that is not
   * a whole number is ignored, and a failure to open (file not found) fails the returned future.
   */
  CompletableFuture<FSDataInputStream> openFile(Path path, OpenFileParameters parameters, Collection<String> knownKeys,
      StatusTracker.StatusLookup lookup, SourceOpener opener) {
    AbstractFSBuilderImpl.rejectUnknownMandatoryKeys(parameters.getMandatoryKeys(), knownKeys, "for " + path);
    long length = positiveLong(parameters.getOptions().getTrimmed(Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH));
    CompletableFuture<FSDataInputStream> result = new CompletableFuture<>();
    try {
      result.complete(open(path, parameters.getStatus(), length, lookup, opener));
    } catch (IOException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  /** {@code value} as a whole number of at least 0, or -1 when it is not one (as Hadoop's {@code FSBuilderSupport}, which Hadoop 3.3.5 lacks). */
  private static long positiveLong(String value) {
    if (value == null) {
      return -1;
    }
    try {
      long parsed = Long.parseLong(value);
      return parsed >= 0 ? parsed : -1;
    } catch (NumberFormatException e) {
      LOG.debug("Ignoring {}={}: not a whole number", Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, value);
      return -1;
    }
  }

  /**
   * The status of {@code path} an open would trust now without asking the source (see
   * {@code rubix.cache.freshness}), or null: what {@code getFileStatus} answers in ttl and immutable
   * modes, so a reader that opens a file and then asks for its length sees the version it reads.
   */
  FileStatus knownStatus(Path path) {
    return tracker.known(path);
  }

  /** The source's answer to {@code getFileStatus}. */
  @FunctionalInterface
  interface SourceStatus {
    FileStatus get() throws IOException;
  }

  /**
   * {@code getFileStatus} of {@code path}: the status an open would trust now ({@link #knownStatus}),
   * else the source's, kept where the path's freshness trusts statuses (ttl, immutable) as an open's.
   */
  FileStatus fileStatus(Path path, SourceStatus source) throws IOException {
    FileStatus known = tracker.known(path);
    if (known != null) {
      return known;
    }
    FileStatus status = source.get();
    tracker.seen(path, status);
    return status;
  }

  /** Called after {@code path} (a file, or a directory and all under it) was written, renamed or deleted through the file system. */
  void changed(Path path) {
    tracker.forgetTree(path);
    engine.invalidate(path.toString());
  }

  @Override
  public void close() throws IOException {
    try {
      engine.close();
    } finally {
      if (locality != null) {
        locality.close();
      }
    }
  }
}
