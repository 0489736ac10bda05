package io.rubix.presto;

import io.rubix.hadoop.CachingFileSystem;

/**
 * Trino's legacy S3 file system ({@code io.trino.hdfs.s3.TrinoS3FileSystem} of trino-hdfs, configured by
 * the {@code trino.s3.*} keys) with reads through the RubiX cache. For Trino's Hive connector with
 * {@code fs.hadoop.enabled=true} and {@code hive.s3-file-system-type=HADOOP_DEFAULT}: set
 * {@code fs.s3.impl}, {@code fs.s3a.impl} and {@code fs.s3n.impl} to this class in the core-site.xml
 * named by {@code hive.config.resources}. {@code rubix.fs.<scheme>.wrapped.impl} names another class to
 * wrap. The wrapped class is loaded by name, so this jar does not depend on trino-hdfs.
 */
public class CachingTrinoS3FileSystem extends CachingFileSystem {
  /** The class wrapped unless {@code rubix.fs.<scheme>.wrapped.impl} says otherwise. */
  public static final String TRINO_S3_FILE_SYSTEM = "io.trino.hdfs.s3.TrinoS3FileSystem";

  @Override
  protected String defaultWrappedImpl() {
    return TRINO_S3_FILE_SYSTEM;
  }
}
