package io.rubix.presto;

import io.rubix.hadoop.CachingFileSystem;

/**
 * PrestoDB's own S3 file system ({@code com.facebook.presto.hive.s3.PrestoS3FileSystem}, configured by
 * the {@code presto.s3.*} keys) with reads through the RubiX cache. For PrestoDB's Hive connector with
 * {@code hive.s3-file-system-type=HADOOP_DEFAULT}: set {@code fs.s3.impl}, {@code fs.s3a.impl} and
 * {@code fs.s3n.impl} to this class in the core-site.xml named by {@code hive.config.resources}.
 * {@code rubix.fs.<scheme>.wrapped.impl} names another class to wrap. The wrapped class is loaded by
 * name, so this jar does not depend on presto-hive; it loads on PrestoDB's Hadoop 2.7.
 */
public class CachingPrestoS3FileSystem extends CachingFileSystem {
  /** The class wrapped unless {@code rubix.fs.<scheme>.wrapped.impl} says otherwise. */
  public static final String PRESTO_S3_FILE_SYSTEM = "com.facebook.presto.hive.s3.PrestoS3FileSystem";

  @Override
  protected String defaultWrappedImpl() {
    return PRESTO_S3_FILE_SYSTEM;
  }
}
