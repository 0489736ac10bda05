package io.rubix.hadoop;

import io.rubix.core.CacheEngine;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.compat.HadoopApi;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.config.CacheKeys;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * A file system that wraps the real file system of its scheme and reads through the RubiX block
 * cache. Everything but reads passes straight through; URIs and the scheme stay the user's.
 *
 * <p>Enable it per scheme in core-site.xml, e.g. {@code fs.gs.impl=io.rubix.hadoop.CachingGcsFileSystem};
 * the wrapped class is {@code rubix.fs.<scheme>.wrapped.impl}, defaulting to the scheme's usual
 * Hadoop class ({@link #defaultWrappedImpl()}). This generic class has no default and needs the key.
 * For s3a use {@link CachingS3AFileSystem}, which is itself an S3AFileSystem.
 */
public class CachingFileSystem extends FilterFileSystem implements HasCacheEngine, HasClusterLocality {
  static final String READ_POLICY = Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY;

  private CachingSupport support;
  private String scheme;

  public CachingFileSystem() {}

  /** The class wrapped when {@code rubix.fs.<scheme>.wrapped.impl} is not set, or null when the key is required. */
  protected String defaultWrappedImpl() {
    return null;
  }

  /** How cache data files are opened; tests override it to inject disk faults. */
  protected ChannelOpener cacheChannelOpener() {
    return ChannelOpener.DEFAULT;
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    String scheme = name.getScheme();
    String key = CacheKeys.WRAPPED_IMPL.forScheme(scheme);
    String className = conf.getTrimmed(key, defaultWrappedImpl());
    if (className == null || className.isEmpty()) {
      throw new InvalidConfigException(key, "", "the class name of the file system to wrap for scheme " + scheme);
    }
    Class<? extends FileSystem> wrappedClass;
    try {
      wrappedClass = conf.getClassByName(className).asSubclass(FileSystem.class);
    } catch (ClassNotFoundException | ClassCastException e) {
      throw new InvalidConfigException(key, className, "a FileSystem class on the classpath (" + e + ")");
    }
    if (HasCacheEngine.class.isAssignableFrom(wrappedClass)) {
      throw new InvalidConfigException(key, className, "a file system that is not itself a RubiX caching file system");
    }
    this.scheme = scheme;
    FileSystem wrapped = ReflectionUtils.newInstance(wrappedClass, conf);
    wrapped.initialize(name, conf);
    this.fs = wrapped;
    super.initialize(name, conf);
    this.support = CachingSupport.create(name, conf, cacheChannelOpener());
  }

  /**
   * The scheme this file system was created for. Engines ask (Trino decides from it whether paths are
   * hierarchical); FilterFileSystem does not forward it, and Hadoop's default throws.
   */
  @Override
  public String getScheme() {
    return scheme != null ? scheme : super.getScheme();
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

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    Path qualified = makeQualified(path);
    if (support == null || !support.caches(qualified)) {
      return fs.open(path, bufferSize);
    }
    return support.open(qualified, null, -1, fs::getFileStatus, sourceOpener);
  }

  /**
   * A builder that opens through this file system: {@link FilterFileSystem} hands {@code openFile()}
   * to the wrapped file system, whose streams would bypass the cache.
   */
  @Override
  public FutureDataInputStreamBuilder openFile(Path path) throws IOException {
    if (support == null) {
      return super.openFile(path);
    }
    return OpenFileSource.builder(this, path);
  }

  /**
   * Opens through the cache. Of the mandatory options only Hadoop's standard ones are accepted: options
   * of the wrapped store are not passed on to it (the cache reads the source its own way), so a
   * mandatory one fails the call instead of being ignored.
   */
  @Override
  protected CompletableFuture<FSDataInputStream> openFileWithOptions(Path path, OpenFileParameters parameters) throws IOException {
    if (support == null || !support.caches(makeQualified(path))) {
      return super.openFileWithOptions(path, parameters);
    }
    return support.openFile(makeQualified(path), parameters, OpenFileKeys.STANDARD,
        fs::getFileStatus, sourceOpener);
  }

  /**
   * With a cluster manager: one location per {@code rubix.cache.filesplit.size} split, on the cache
   * nodes that own it. Without one: the wrapped file system's locations.
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
      return fs.getFileBlockLocations(path, start, len);
    }
    return getFileBlockLocations(getFileStatus(path), start, len);
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listLocatedStatus(Path path) throws IOException {
    return relocate(super.listLocatedStatus(path));
  }

  @Override
  protected RemoteIterator<LocatedFileStatus> listLocatedStatus(Path path, PathFilter filter) throws IOException {
    return relocate(super.listLocatedStatus(path, filter));
  }

  private RemoteIterator<LocatedFileStatus> relocate(RemoteIterator<LocatedFileStatus> listing) {
    if (support == null || support.locality() == null) {
      return listing;
    }
    return LocatedStatuses.relocate(listing, status -> support.blockLocations(makeQualified(status.getPath()), status, 0, status.getLen()));
  }

  /**
   * The wrapped file system's streams: without a HEAD where its {@code openFile()} takes the status (Hadoop
   * 3.3+); the bytes streams through the cache return are counted in the wrapped file system's statistics,
   * where its own streams count theirs.
   */
  private final CachingSupport.SourceOpener sourceOpener = new CachingSupport.SourceOpener() {
    @Override
    public FSDataInputStream open(Path path, FileStatus status) throws IOException {
      return HadoopApi.OPEN_FILE ? OpenFileSource.open(fs, path, status) : fs.open(path);
    }

    // deprecated in Hadoop 3, but the one way to the statistics object the wrapped file system's streams count into (and engines read)
    @Override
    @SuppressWarnings("deprecation")
    public FileSystem.Statistics statistics() {
      return FileSystem.getStatistics(fs.getUri().getScheme(), fs.getClass());
    }
  };

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize, short replication,
      long blockSize, Progressable progress) throws IOException {
    changed(f);
    return super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, EnumSet<CreateFlag> flags, int bufferSize,
      short replication, long blockSize, Progressable progress, Options.ChecksumOpt checksumOpt) throws IOException {
    changed(f);
    return super.create(f, permission, flags, bufferSize, replication, blockSize, progress, checksumOpt);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, EnumSet<CreateFlag> flags,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    changed(f);
    return super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
    changed(f);
    return super.append(f, bufferSize, progress);
  }

  @Override
  public boolean truncate(Path f, long newLength) throws IOException {
    changed(f);
    return super.truncate(f, newLength);
  }

  @Override
  public void concat(Path target, Path[] sources) throws IOException {
    super.concat(target, sources);
    changed(target);
    for (Path source : sources) {
      changed(source);
    }
  }

  @Override
  protected void rename(Path src, Path dst, Options.Rename... options) throws IOException {
    super.rename(src, dst, options);
    changed(src);
    changed(dst);
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
      }
    }
  }

}
