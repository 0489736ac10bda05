package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import io.rubix.core.CacheEngine;
import io.rubix.core.read.session.Source;
import io.rubix.spi.ObjectVersion;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * An Iceberg file read through the cache. Iceberg never rewrites a file (its spec: every data, delete,
 * manifest and metadata file gets a new name), so the file's version is its location and length: with a
 * length given ({@code newInputFile(path, length)}, which Iceberg uses for data files, delete files and
 * manifests) no request is made before reading; without one, the delegate's {@link InputFile#getLength()}
 * asks the store once (a HEAD on object stores), on first need.
 *
 * <p>The version has no modification time and no ETag, as the Hadoop file systems' versions of paths with
 * {@code immutable} freshness: a caching Hadoop file system reading the same path (same scheme) with
 * that freshness reads the same cached blocks.
 */
final class CachingInputFile implements InputFile {
  private final CacheEngine engine;
  private final InputFile delegate;
  /** The length given or learned; -1 until known. Racing first calls both ask the delegate, which answers the same. */
  private volatile long length;

  CachingInputFile(CacheEngine engine, InputFile delegate, long length) {
    this.engine = requireNonNull(engine, "engine is null");
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.length = length;
  }

  @Override
  public long getLength() {
    long known = length;
    if (known < 0) {
      known = delegate.getLength();
      length = known;
    }
    return known;
  }

  @Override
  public SeekableInputStream newStream() {
    long known = getLength();
    ObjectVersion version = new ObjectVersion(delegate.location(), known, 0, "");
    return new CachingSeekableInputStream(engine.open(version, source(known)));
  }

  /** HadoopFileIO's files read with the length known (no HEAD per range), the others through their own streams. */
  private Source source(long known) {
    return delegate instanceof HadoopInputFile hadoop ? new HadoopFileSource(hadoop.getFileSystem(), hadoop.getPath(), known)
        : new InputFileSource(delegate);
  }

  @Override
  public String location() {
    return delegate.location();
  }

  /** Asks the delegate (the store): a file known by its length may have been deleted since. */
  @Override
  public boolean exists() {
    return delegate.exists();
  }

  @Override
  public String toString() {
    return "CachingInputFile[" + delegate + "]";
  }
}
