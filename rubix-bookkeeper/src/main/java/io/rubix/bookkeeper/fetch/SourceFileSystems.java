package io.rubix.bookkeeper.fetch;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.rubix.core.compat.HadoopApi;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.hadoop.RangeReads;
import io.rubix.hadoop.RecentStatuses;
import io.rubix.hadoop.WrappedFileSystems;
import io.rubix.spi.ObjectVersion;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.function.IntConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sources an owner node reads for its peers, opened with this node's own Hadoop configuration
 * (its credentials). It always opens the file system a caching class wraps, never a RubiX caching
 * class (which would read through the cache it is filling), one instance per scheme and authority,
 * at most {@value #MAX_FILE_SYSTEMS} at once: the least recently used is closed when another one is
 * needed (a read still using it then fails, and the fill is retried after its backoff), and all are
 * closed with this object. Which schemes and authorities peers may name at all is the
 * {@link OwnerFetcher}'s check, made before this class opens anything.
 * Before the first read of a version it checks that the source still has exactly that version
 * (length, and ETag when the version has one, else modification time when it has one): a changed
 * or deleted object is a {@link StaleVersionException}, never bytes of another version. The check
 * follows {@code rubix.cache.freshness}: every fill in strict mode, at most every ttl in ttl mode,
 * once per version in immutable mode. Reads pass the checked status on, so S3A's ETag change
 * detection also refuses an object that changes between the check and the read. A read is one
 * request whose bytes are announced as they arrive (every {@value RangeReads#ANNOUNCE_BYTES} bytes), so an owner
 * can send them to its peer while it fetches them.
 */
public final class SourceFileSystems implements OwnerFetcher.SourceOpener, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SourceFileSystems.class);
  /** Most file systems (one per scheme and authority) open at once. */
  static final int MAX_FILE_SYSTEMS = 16;
  /** How many new bytes a read announces at once to whoever sends them on as they arrive. */
  private static final String REMOTE_FILE_CHANGED = "org.apache.hadoop.fs.s3a.RemoteFileChangedException";

  private final Configuration conf;
  /** Open file systems by {@code scheme://authority}; the removal listener closes them. */
  private final Cache<String, FileSystem> fileSystems;
  private final RecentStatuses<ObjectVersion> checked;
  private volatile boolean closed;

  /**
   * Sources opened with {@code conf} over Hadoop's defaults (and any {@code core-site.xml} on the
   * class path): a daemon's configuration is often built without defaults, which connectors expect.
   */
  public SourceFileSystems(Configuration conf, CacheConfig cache) {
    requireNonNull(conf, "conf is null");
    this.conf = new Configuration();
    for (Map.Entry<String, String> entry : conf) {
      this.conf.set(entry.getKey(), entry.getValue());
    }
    this.checked = RecentStatuses.of(cache);
    this.fileSystems = Caffeine.newBuilder().maximumSize(MAX_FILE_SYSTEMS).executor(Runnable::run)
        .<String, FileSystem>removalListener((key, fs, cause) -> closeQuietly(fs)).build();
  }

  /** A source for {@code version} that checks the version against the source before its first read. */
  @Override
  public Source open(ObjectVersion version) throws IOException {
    Path path = new Path(version.path());
    FileSystem fs = fileSystem(path.toUri());
    return new Source() {
      private volatile FileStatus status;

      @Override
      public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        readFully(position, buffer, offset, length, arrived -> { });
      }

      @Override
      public void readFully(long position, byte[] buffer, int offset, int length, IntConsumer arrived) throws IOException {
        FileStatus current = status;
        if (current == null) {
          current = check(fs, path, version);
          status = current;
        }
        // random: the first read asks for [position, position + length), one request; the reads after it continue that request
        try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(current)
            .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, "random").build())) {
          RangeReads.readFully(in, path + " of " + version, position, buffer, offset, length, arrived);
        } catch (FileNotFoundException e) {
          throw new StaleVersionException("Source no longer has " + version, e);
        } catch (IOException e) {
          if (changed(e)) {
            throw new StaleVersionException("Source changed under " + version, e);
          }
          throw e;
        }
      }
    };
  }

  /** Whether {@code e} says the object changed since its status was taken (S3A's change detection; not referenced by class: S3A may be absent). */
  private static boolean changed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (REMOTE_FILE_CHANGED.equals(t.getClass().getName())) {
        return true;
      }
    }
    return false;
  }

  private FileStatus check(FileSystem fs, Path path, ObjectVersion version) throws IOException {
    FileStatus known = checked.get(version);
    if (known != null) {
      return known;
    }
    FileStatus status;
    try {
      status = fs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      throw new StaleVersionException("Source no longer has " + version, e);
    }
    String etag = HadoopApi.etagOf(status);
    if (etag == null) {
      etag = "";
    }
    boolean same = status.isFile() && status.getLen() == version.length()
        && (!version.etag().isEmpty() ? version.etag().equals(etag) : version.modificationTime() == 0 || version.modificationTime() == status.getModificationTime());
    if (!same) {
      throw new StaleVersionException("Source has " + path + " with length " + status.getLen() + ", modification time " + status.getModificationTime()
          + ", ETag " + etag + "; asked for " + version);
    }
    checked.put(version, status);
    return status;
  }

  private FileSystem fileSystem(URI uri) throws IOException {
    if (uri.getScheme() == null) {
      throw new IOException("Not a fully qualified path: " + uri);
    }
    String key = uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
    FileSystem fs = fileSystems.getIfPresent(key);
    if (fs != null) {
      return fs;
    }
    synchronized (this) {
      if (closed) {
        throw new IOException("Closed: cannot open " + key + " for peers");
      }
      fs = fileSystems.getIfPresent(key);
      if (fs == null) {
        fs = FileSystem.newInstance(URI.create(key + "/"), underlyingConf(uri.getScheme()));
        fileSystems.put(key, fs);
        fileSystems.cleanUp();
        LOG.info("Fetching {} for peers through {}", key, fs.getClass().getName());
      }
      return fs;
    }
  }

  private static void closeQuietly(FileSystem fs) {
    if (fs == null) {
      return;
    }
    try {
      fs.close();
    } catch (IOException e) {
      LOG.debug("Closing {} failed", fs.getUri(), e);
    }
  }

  /** This node's configuration with {@code fs.<scheme>.impl} naming the file system a RubiX caching class wraps. */
  Configuration underlyingConf(String scheme) throws IOException {
    return WrappedFileSystems.underlyingConf(conf, scheme);
  }

  @Override
  public void close() throws IOException {
    synchronized (this) {
      closed = true;
      fileSystems.invalidateAll();
      fileSystems.cleanUp();
    }
  }
}
