package io.rubix.iceberg;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.Source;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * The source of a cached file of HadoopFileIO: each ranged read opens the file with {@code openFile()},
 * passing the length the cache knows and the random read policy, so S3A (Hadoop 3.3.5 and later) asks
 * for no status (HadoopFileIO's own {@code open()} costs a HEAD per stream) and makes one ranged GET.
 */
final class HadoopFileSource implements Source {
  private final FileSystem fs;
  private final Path path;
  private final long length;

  HadoopFileSource(FileSystem fs, Path path, long length) {
    this.fs = requireNonNull(fs, "fs is null");
    this.path = requireNonNull(path, "path is null");
    this.length = length;
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int n) throws IOException {
    try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path)
        .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, Long.toString(length))
        .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY_RANDOM)
        .build())) {
      in.readFully(position, buffer, offset, n);
    }
  }
}
