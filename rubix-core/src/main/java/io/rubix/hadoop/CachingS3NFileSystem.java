package io.rubix.hadoop;

/** {@code s3n://} served by S3A with caching: {@code fs.s3n.impl=io.rubix.hadoop.CachingS3NFileSystem}. */
public class CachingS3NFileSystem extends CachingS3AFileSystem {
  @Override
  public String getScheme() {
    return "s3n";
  }
}
