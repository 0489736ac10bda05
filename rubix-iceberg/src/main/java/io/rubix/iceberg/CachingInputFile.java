package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import io.rubix.core.CacheEngine;
import io.rubix.core.read.session.Source;
import io.rubix.spi.ObjectVersion;
import java.io.IOException;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Iceberg file read through the cache. Iceberg never rewrites a file (its spec: every data, delete,
 * manifest and metadata file gets a new name), so the file's version is its location and length: with a
 * length given ({@code newInputFile(path, length)}, which Iceberg uses for data files, delete files and
 * manifests) no request is made before reading.
 *
 * <p>Without one (table metadata files, manifest lists), the cache is asked for the length of the file
 * it holds at that location; if it holds none, the file is read through the delegate's own stream, as
 * the delegate alone would read it (S3FileIO: no HEAD), and cached from what that stream read once its
 * reader has read it all ({@link LearningInputStream}): the next open of the location through the same
 * cache (this JVM, or another sharing the node's BookKeeper) asks the store nothing. {@link #getLength()}
 * asks the delegate (a HEAD on object stores) only when neither the cache nor a read knows the length: a
 * reader that opens the stream and then asks the length (Avro readers of manifest lists) has the stream
 * read to its end in memory instead.
 *
 * <p>The version has no modification time and no ETag, as the Hadoop file systems' versions of paths with
 * {@code immutable} freshness: a caching Hadoop file system reading the same path (same scheme) with
 * that freshness reads the same cached blocks.
 */
final class CachingInputFile implements InputFile {
  private static final Logger LOG = LoggerFactory.getLogger(CachingInputFile.class);
  /** {@link #length} before anyone asked the cache. */
  private static final long NOT_ASKED = -2;
  /** {@link #length} after the cache said it holds no version of the location. */
  private static final long NOT_CACHED = -1;

  private final CacheEngine engine;
  private final InputFile delegate;
  /**
   * The length given or learned, else {@link #NOT_ASKED} or {@link #NOT_CACHED}. Racing first calls may
   * both ask, and get the same answer.
   */
  private volatile long length;
  /** The delegate's stream this file opened last while its length was unknown, which can read to the end for it. */
  private volatile LearningInputStream opened;

  CachingInputFile(CacheEngine engine, InputFile delegate, long length) {
    this.engine = requireNonNull(engine, "engine is null");
    this.delegate = requireNonNull(delegate, "delegate is null");
    this.length = length < 0 ? NOT_ASKED : length;
  }

  @Override
  public long getLength() {
    long known = cachedLength();
    if (known < 0) {
      known = readWhole();
    }
    if (known < 0) {
      known = delegate.getLength();
    }
    length = known;
    return known;
  }

  /** The length from the end of the delegate's stream this file opened last (see {@link LearningInputStream#readWhole()}), or -1. */
  private long readWhole() {
    LearningInputStream stream = opened;
    if (stream == null) {
      return -1;
    }
    try {
      return stream.readWhole();
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not read {} to its end for its length; asking the store", delegate.location(), e);
      return -1;
    }
  }

  /** The length given, learned, or of the version the cache holds; negative when none of them knows it. */
  private long cachedLength() {
    long known = length;
    if (known == NOT_ASKED) {
      known = engine.immutableLength(delegate.location());
      length = known < 0 ? NOT_CACHED : known;
    }
    return known;
  }

  @Override
  public SeekableInputStream newStream() {
    long known = cachedLength();
    if (known < 0) {
      LearningInputStream stream = new LearningInputStream(this, delegate.newStream(), () -> length, this::learned);
      opened = stream;
      return stream;
    }
    return new CachingSeekableInputStream(engine.open(ObjectVersion.ofPathAndLength(delegate.location(), known), source(known)));
  }

  /** A stream of the delegate read all {@code copy[0, read)}: the file's length, and what to cache of it. */
  private void learned(byte[] copy, int read) {
    long known = length;
    if (known >= 0 && known != read) {
      LOG.warn("{} is {} bytes long, but its stream ended after {}: not cached", delegate.location(), known, read);
      return;
    }
    length = read;
    engine.keep(ObjectVersion.ofPathAndLength(delegate.location(), read), copy);
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
