package io.rubix.hadoop;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * The Hadoop 3.3+ {@code openFile()} calls of {@link CachingFileSystem}, kept out of it so that it
 * loads on Hadoop 2.7, where verifying code that makes them fails ({@code HadoopApi.OPEN_FILE}).
 * A {@link FileSystem} subclass only to reach the protected {@code createDataInputStreamBuilder};
 * never instantiated.
 */
abstract class OpenFileSource extends FileSystem {
  private OpenFileSource() {}

  /** A builder whose {@code build()} opens {@code path} through {@code fs}'s own {@code openFileWithOptions}. */
  static FutureDataInputStreamBuilder builder(FileSystem fs, Path path) {
    return createDataInputStreamBuilder(fs, path);
  }

  /** Opens a source stream with the object's status (no HEAD) and the random read policy. */
  static FSDataInputStream open(FileSystem fs, Path path, FileStatus status) throws IOException {
    return FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status)
        .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, "random").build());
  }
}
