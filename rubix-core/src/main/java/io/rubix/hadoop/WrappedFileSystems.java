package io.rubix.hadoop;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.CacheKeys;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * Which file system a RubiX caching class wraps, for code that must read a source without going
 * through the cache it fills (the daemon's fetches for peers): {@link CachingS3AFileSystem} wraps
 * S3A, a {@link CachingFileSystem} the class {@code rubix.fs.<scheme>.wrapped.impl} names or its
 * own default. A wrapped class that is itself a RubiX caching class is an
 * {@link InvalidConfigException}.
 */
public final class WrappedFileSystems {
  private WrappedFileSystems() {}

  /**
   * A copy of {@code conf} with {@code fs.<scheme>.impl} naming the file system a RubiX caching class
   * wraps (unchanged when the configured class is not a caching class), the file system cache
   * disabled for the scheme, and for S3A the stream type {@code rubix.s3a.source.stream.type} asks for.
   */
  public static Configuration underlyingConf(Configuration conf, String scheme) throws IOException {
    requireNonNull(conf, "conf is null");
    requireNonNull(scheme, "scheme is null");
    Configuration copy = new Configuration(conf);
    Class<? extends FileSystem> impl = underlyingClass(conf, scheme);
    copy.set("fs." + scheme + ".impl", impl.getName());
    copy.setBoolean("fs." + scheme + ".impl.disable.cache", true);
    if (S3AFileSystem.class.isAssignableFrom(impl)) {
      copy.set(CachingS3AFileSystem.S3A_STREAM_TYPE, copy.getTrimmed(CacheKeys.S3A_SOURCE_STREAM.name(), CacheKeys.S3A_SOURCE_STREAM.defaultValue()));
    }
    return copy;
  }

  private static Class<? extends FileSystem> underlyingClass(Configuration conf, String scheme) throws IOException {
    Class<? extends FileSystem> configured = FileSystem.getFileSystemClass(scheme, conf);
    Class<? extends FileSystem> impl = configured;
    if (CachingS3AFileSystem.class.isAssignableFrom(configured)) {
      impl = S3AFileSystem.class;
    } else if (CachingFileSystem.class.isAssignableFrom(configured)) {
      String key = CacheKeys.WRAPPED_IMPL.forScheme(scheme);
      String name = conf.getTrimmed(key);
      if (name == null || name.isEmpty()) {
        try {
          name = configured.asSubclass(CachingFileSystem.class).getDeclaredConstructor().newInstance().defaultWrappedImpl();
        } catch (ReflectiveOperationException e) {
          throw new IOException("Cannot ask " + configured.getName() + " which file system it wraps", e);
        }
      }
      if (name == null) {
        throw new InvalidConfigException(key, "", "the class name of the file system to wrap for scheme " + scheme);
      }
      try {
        impl = conf.getClassByName(name).asSubclass(FileSystem.class);
      } catch (ClassNotFoundException | ClassCastException e) {
        throw new InvalidConfigException(key, name, "a FileSystem class on the classpath (" + e + ")");
      }
    }
    if (CachingFileSystem.class.isAssignableFrom(impl) || CachingS3AFileSystem.class.isAssignableFrom(impl)) {
      throw new InvalidConfigException("fs." + scheme + ".impl", impl.getName(), "a file system that RubiX does not cache through, for fetches for peers");
    }
    return impl;
  }
}
