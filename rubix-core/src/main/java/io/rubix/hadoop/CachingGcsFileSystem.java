package io.rubix.hadoop;

/** Caching for {@code gs://}: {@code fs.gs.impl=io.rubix.hadoop.CachingGcsFileSystem}, wrapping {@code com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem} by default. */
public class CachingGcsFileSystem extends CachingFileSystem {
  @Override
  protected String defaultWrappedImpl() {
    return "com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem";
  }
}
