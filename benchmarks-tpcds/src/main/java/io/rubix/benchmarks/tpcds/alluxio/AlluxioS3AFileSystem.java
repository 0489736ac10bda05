package io.rubix.benchmarks.tpcds.alluxio;

import alluxio.hadoop.LocalCacheFileSystem;
import java.io.IOException;
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
}
