package io.rubix.hadoop;

/** Caching for {@code file://}: {@code fs.file.impl=io.rubix.hadoop.CachingLocalFileSystem}, wrapping {@code org.apache.hadoop.fs.LocalFileSystem} by default. */
public class CachingLocalFileSystem extends CachingFileSystem {
  @Override
  protected String defaultWrappedImpl() {
    return "org.apache.hadoop.fs.LocalFileSystem";
  }
}
