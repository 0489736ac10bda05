package io.rubix.hadoop;

/** Caching for {@code abfss://}: {@code fs.abfss.impl=io.rubix.hadoop.CachingAbfssFileSystem}, wrapping {@code org.apache.hadoop.fs.azurebfs.SecureAzureBlobFileSystem} by default. */
public class CachingAbfssFileSystem extends CachingFileSystem {
  @Override
  protected String defaultWrappedImpl() {
    return "org.apache.hadoop.fs.azurebfs.SecureAzureBlobFileSystem";
  }
}
