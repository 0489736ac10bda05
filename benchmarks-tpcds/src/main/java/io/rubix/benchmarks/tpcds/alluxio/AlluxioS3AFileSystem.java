package io.rubix.benchmarks.tpcds.alluxio;

import alluxio.client.file.cache.CacheManager;
import alluxio.hadoop.LocalCacheFileSystem;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * The peer to compare with: S3A behind Alluxio 2.9.6's client-side page cache
 * ({@code LocalCacheFileSystem}), usable as {@code fs.s3a.impl}. Configured by the Hadoop keys
 * {@code alluxio.user.client.cache.enabled}, {@code .dirs}, {@code .size} and {@code .page.size}.
 */
public final class AlluxioS3AFileSystem extends LocalCacheFileSystem {
  private final S3AFileSystem s3a;

  public AlluxioS3AFileSystem() {
    this(new S3AFileSystem());
  }

  private AlluxioS3AFileSystem(S3AFileSystem s3a) {
    super(s3a);
    this.s3a = s3a;
  }

  @Override
  public synchronized void initialize(URI uri, Configuration conf) throws IOException {
    s3a.initialize(uri, conf);
    super.initialize(uri, conf);
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      s3a.close();
    }
  }

  /**
   * Closes and forgets the JVM's Alluxio cache manager, so that the next file system initialised
   * makes a new one over what its cache directory holds then. Alluxio keeps one cache manager per JVM
   * ({@code CacheManager.Factory}) that closing a file system leaves open and that has no public way
   * to drop every page ({@code invalidate} is unsupported by the manager the factory makes); its
   * package-private {@code Factory.clear()}, which Alluxio's own tests use, does it. Call it with no
   * Alluxio file system in use, then empty the cache directory.
   */
  public static void closeCacheManager() throws IOException {
    try {
      Method clear = CacheManager.Factory.class.getDeclaredMethod("clear");
      clear.setAccessible(true);
      clear.invoke(null);
    } catch (InvocationTargetException e) {
      throw new IOException("Closing Alluxio's cache manager", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Alluxio's CacheManager.Factory.clear() is not there (another Alluxio version?)", e);
    }
  }
}
