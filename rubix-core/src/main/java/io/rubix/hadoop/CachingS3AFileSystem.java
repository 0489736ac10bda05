package io.rubix.hadoop;

import io.rubix.core.CacheEngine;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.compat.HadoopApi;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.config.CacheKeys;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.s3a.Constants;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3ALocatedFileStatus;
import org.apache.hadoop.util.Progressable;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * S3A with reads through the RubiX block cache: {@code fs.s3a.impl=io.rubix.hadoop.CachingS3AFileSystem}.
 *
 * <p>It is an {@link S3AFileSystem} (a subclass that overrides only the read path and the write
 * calls that must invalidate), because Hadoop's S3A committers and the engines check for that class.
 * Blocks are fetched with S3A's own {@code classic} input stream ({@code rubix.s3a.source.stream.type}),
 * opened with the object's status so no extra HEAD is made and, with S3A's default ETag change
 * detection, a GET of an object that changed since its version was taken fails instead of caching
 * bytes of another version.
 */
public class CachingS3AFileSystem extends S3AFileSystem implements HasCacheEngine, HasClusterLocality {
  static final String S3A_STREAM_TYPE = "fs.s3a.input.stream.type";

  private CachingSupport support;
  /** Whether S3A fails a GET of an object whose ETag is not the one in the status it was opened with. */
  private boolean etagChangeDetection;
  /** Whether sources are S3A's classic stream, which with the random policy asks for exactly the range its first read asks for. */
  private boolean classicSource;
  private final CachingSupport.SourceOpener sourceOpener = new CachingSupport.SourceOpener() {
    @Override
    public FSDataInputStream open(Path path, FileStatus status) throws IOException {
      return openSource(path, status);
    }

    @Override
    public boolean detectsChanges(FileStatus status) {
      return etagChangeDetection && HadoopApi.etagOf(status) != null;
    }

    @Override
    public boolean streamsRanges() {
      return classicSource;
    }

    @Override
    public FileSystem.Statistics statistics() {
      return statistics;
    }
  };

  /** How cache data files are opened; tests override it to inject disk faults. */
  protected ChannelOpener cacheChannelOpener() {
    return ChannelOpener.DEFAULT;
  }

  @Override
  public void initialize(URI name, Configuration originalConf) throws IOException {
    Configuration conf = new Configuration(originalConf);
    conf.set(S3A_STREAM_TYPE, conf.getTrimmed(CacheKeys.S3A_SOURCE_STREAM.name(), CacheKeys.S3A_SOURCE_STREAM.defaultValue()));
    super.initialize(name, conf);
    this.classicSource = "classic".equalsIgnoreCase(conf.getTrimmed(S3A_STREAM_TYPE));
    String mode = conf.getTrimmed(Constants.CHANGE_DETECT_MODE, Constants.CHANGE_DETECT_MODE_DEFAULT).toLowerCase(Locale.ROOT);
    String source = conf.getTrimmed(Constants.CHANGE_DETECT_SOURCE, Constants.CHANGE_DETECT_SOURCE_DEFAULT).toLowerCase(Locale.ROOT);
    // "warn" only logs and "none" does nothing; a version id source needs a version id no status we convert carries
    this.etagChangeDetection = Constants.CHANGE_DETECT_SOURCE_ETAG.equals(source)
        && (Constants.CHANGE_DETECT_MODE_SERVER.equals(mode) || Constants.CHANGE_DETECT_MODE_CLIENT.equals(mode));
    this.support = CachingSupport.create(name, conf, cacheChannelOpener());
  }

  /** The cache engine of this file system, or null when caching is disabled. */
  @Override
  public CacheEngine cacheEngine() {
    return support == null ? null : support.engine();
  }

  @Override
  public ClusterLocality clusterLocality() {
    return support == null ? null : support.locality();
  }

  /**
   * In ttl and immutable freshness modes, a file's status the cache trusts (the version an open reads);
   * else the source's, which those modes then trust as an open's (a planner that asks every file's status,
   * as Iceberg's block locations do, asks the source once per file, not once per query).
   */
  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    return support == null ? super.getFileStatus(path) : support.fileStatus(makeQualified(path), () -> super.getFileStatus(path));
  }

  /**
   * True without a HEAD for a file whose status the cache trusts, as {@link #getFileStatus}: S3A's own
   * {@code exists} does not go through {@code getFileStatus} (Iceberg's Hadoop tables ask it of their
   * current metadata file at every load).
   */
  @Override
  public boolean exists(Path path) throws IOException {
    return (support != null && support.knownStatus(makeQualified(path)) != null) || super.exists(path);
  }

  /** True without a HEAD for a file whose status the cache trusts, as {@link #exists}. */
  @Override
  @SuppressWarnings("deprecation")
  public boolean isFile(Path path) throws IOException {
    FileStatus known = support == null ? null : support.knownStatus(makeQualified(path));
    return known != null ? known.isFile() : super.isFile(path);
  }

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    if (support == null || !support.caches(makeQualified(path))) {
      return super.open(path, bufferSize);
    }
    return support.open(makeQualified(path), null, -1, super::getFileStatus, sourceOpener);
  }

  @Override
  public CompletableFuture<FSDataInputStream> openFileWithOptions(Path path, OpenFileParameters parameters) throws IOException {
    if (support == null || !support.caches(makeQualified(path))) {
      return super.openFileWithOptions(path, parameters);
    }
    return support.openFile(makeQualified(path), parameters, OpenFileKeys.S3A, super::getFileStatus, sourceOpener);
  }

  /**
   * With a cluster manager: one location per {@code rubix.cache.filesplit.size} split, on the cache
   * nodes that own it (S3A's listings, {@code listLocatedStatus} and {@code listFiles}, ask this method
   * for their locations). Without one: S3A's own.
   */
  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) throws IOException {
    if (file == null) {
      return null;
    }
    BlockLocation[] located = support == null ? null : support.blockLocations(makeQualified(file.getPath()), file, start, len);
    return located != null ? located : super.getFileBlockLocations(file, start, len);
  }

  @Override
  public BlockLocation[] getFileBlockLocations(Path path, long start, long len) throws IOException {
    if (support == null || support.locality() == null) {
      return super.getFileBlockLocations(path, start, len);
    }
    return getFileBlockLocations(getFileStatus(path), start, len);
  }

  private FSDataInputStream openSource(Path path, FileStatus status) throws IOException {
    String etag = HadoopApi.etagOf(status);
    if (etag != null && !(status instanceof S3AFileStatus) && !(status instanceof S3ALocatedFileStatus)) {
      // S3A takes the ETag to check GETs against only from its own status classes; any other status
      // (an engine's, ours from listLocatedStatus) would open a stream without change detection
      status = new S3AFileStatus(status.getLen(), status.getModificationTime(), status.getPath(), status.getBlockSize(), status.getOwner(), etag,
          null);
    }
    Configuration options = new Configuration(false);
    OpenFileParameters parameters = new OpenFileParameters().withMandatoryKeys(Set.of());
    if (HadoopApi.OPEN_FILE_OPTIONAL_KEYS) {
      options.set(CachingFileSystem.READ_POLICY, "random");
      parameters = parameters.withOptionalKeys(Set.of(CachingFileSystem.READ_POLICY));
    } else {
      // Hadoop 3.3.4: S3A reads its own key (Constants.INPUT_FADVISE, deprecated since), as an option it is not asked to require
      options.set("fs.s3a.experimental.input.fadvise", "random");
    }
    parameters = parameters
        .withOptions(options)
        .withStatus(status)
        .withBufferSize(getConf().getInt("io.file.buffer.size", 4096));
    return FutureIO.awaitFuture(super.openFileWithOptions(path, parameters));
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize, short replication,
      long blockSize, Progressable progress) throws IOException {
    changed(f);
    return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
  }

  @Override
  @SuppressWarnings("rawtypes") // S3AFileSystem declares the raw type
  public FSDataOutputStreamBuilder createFile(Path path) {
    changed(path);
    return super.createFile(path);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    boolean renamed = super.rename(src, dst);
    changed(src);
    changed(dst);
    return renamed;
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    boolean deleted = super.delete(f, recursive);
    changed(f);
    return deleted;
  }

  private void changed(Path path) {
    if (support != null) {
      support.changed(makeQualified(path));
    }
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      if (support != null) {
        support.close();
        support = null;
      }
    }
  }
}
