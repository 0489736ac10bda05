package io.rubix.core.compat;

import java.util.Set;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;

/**
 * Which parts of the Hadoop API the Hadoop on the classpath has, probed once when this class loads.
 *
 * <p>RubiX is compiled against Hadoop 3.4 but must also load and read on the Hadoop 2.7 that PrestoDB
 * bundles and the Hadoop 3.3.5 that Trino bundles. Classes that implement or call what an older
 * Hadoop lacks are used only when the probe here says it is present: the stream with Hadoop 3's
 * abilities ({@code io.rubix.core.read.Hadoop3CachingInputStream}), {@code openFile()} to open the
 * source without a HEAD, ETags of file statuses ({@link #etagOf}, the one place that reads them).
 */
public final class HadoopApi {
  /** {@code StreamCapabilities}, {@code ByteBufferPositionedReadable}, {@code IOStatisticsSource} and vectored reads (Hadoop 3.3.5+). */
  public static final boolean STREAM_3 = present("org.apache.hadoop.fs.StreamCapabilities")
      && present("org.apache.hadoop.fs.ByteBufferPositionedReadable")
      && present("org.apache.hadoop.fs.statistics.IOStatisticsSource")
      && present("org.apache.hadoop.fs.statistics.impl.DynamicIOStatisticsBuilder")
      && present("org.apache.hadoop.fs.FileRange");
  /** {@code FileSystem.openFile(Path)} with {@code withFileStatus} and {@code FutureIO} (Hadoop 3.3.1+). */
  public static final boolean OPEN_FILE = present("org.apache.hadoop.fs.FutureDataInputStreamBuilder")
      && present("org.apache.hadoop.util.functional.FutureIO");
  /** {@code org.apache.hadoop.fs.EtagSource} (Hadoop 3.3.2+). */
  public static final boolean ETAGS = present("org.apache.hadoop.fs.EtagSource");
  /**
   * {@code OpenFileParameters.withOptionalKeys} and the standard read policy option (Hadoop 3.3.5+); Hadoop
   * 3.3.4 (Spark 3.5's) takes only mandatory keys, and S3A's own {@code fs.s3a.experimental.input.fadvise}.
   */
  public static final boolean OPEN_FILE_OPTIONAL_KEYS = hasMethod("org.apache.hadoop.fs.impl.OpenFileParameters", "withOptionalKeys", Set.class);

  private HadoopApi() {}

  /** The ETag of {@code status}, or null when it has none or this Hadoop has no ETags (before 3.3.2). */
  public static String etagOf(FileStatus status) {
    return ETAGS && status instanceof EtagSource source ? source.getEtag() : null;
  }

  private static boolean hasMethod(String className, String method, Class<?>... parameterTypes) {
    try {
      Class.forName(className, false, HadoopApi.class.getClassLoader()).getMethod(method, parameterTypes);
      return true;
    } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
      return false;
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, HadoopApi.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
