package io.rubix.hadoop;

/** {@code s3://} served by S3A with caching: {@code fs.s3.impl=io.rubix.hadoop.CachingS3FileSystem}. */
public class CachingS3FileSystem extends CachingS3AFileSystem {
  @Override
  public String getScheme() {
    return "s3";
  }
}
