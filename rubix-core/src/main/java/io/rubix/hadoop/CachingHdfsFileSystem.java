package io.rubix.hadoop;

/** Caching for {@code hdfs://}: {@code fs.hdfs.impl=io.rubix.hadoop.CachingHdfsFileSystem}, wrapping {@code org.apache.hadoop.hdfs.DistributedFileSystem} by default. */
public class CachingHdfsFileSystem extends CachingFileSystem {
  @Override
  protected String defaultWrappedImpl() {
    return "org.apache.hadoop.hdfs.DistributedFileSystem";
  }
}
