package io.rubix.spi.config;

import java.util.List;

/** Keys of rubix-iceberg's CachingFileIO, set as Iceberg catalog properties. */
public final class IcebergKeys {
  public static final ConfigKey DELEGATE_IO_IMPL = new ConfigKey("rubix.iceberg.delegate-io-impl", "org.apache.iceberg.io.ResolvingFileIO",
      "Iceberg catalog property: the FileIO class io.rubix.iceberg.CachingFileIO wraps (S3FileIO, HadoopFileIO, GCSFileIO, ADLSFileIO, or"
          + " the default ResolvingFileIO, which picks one per location scheme as Iceberg's REST catalog does). It gets every catalog"
          + " property except the rubix.* ones, the catalog's Hadoop configuration and its storage credentials. Not CachingFileIO itself."
          + " See docs/iceberg.md.");

  private IcebergKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(DELEGATE_IO_IMPL);
  }
}
