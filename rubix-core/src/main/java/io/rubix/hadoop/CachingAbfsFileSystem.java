package io.rubix.hadoop;

/** Caching for {@code abfs://}: {@code fs.abfs.impl=io.rubix.hadoop.CachingAbfsFileSystem}, wrapping {@code org.apache.hadoop.fs.azurebfs.AzureBlobFileSystem} by default. */
public class CachingAbfsFileSystem extends CachingFileSystem {
  @Override
  protected String defaultWrappedImpl() {
    return "org.apache.hadoop.fs.azurebfs.AzureBlobFileSystem";
  }
}
