package io.rubix.hadoop;

import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_BUFFER_SIZE;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_FOOTER_CACHE;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_SPLIT_END;
import static org.apache.hadoop.fs.Options.OpenFileOptions.FS_OPTION_OPENFILE_SPLIT_START;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The mandatory {@code openFile()} options the caching file systems accept, spelled out. Hadoop 3.4 keeps
 * them in {@code Options.OpenFileOptions.FS_OPTION_OPENFILE_STANDARD_OPTIONS} and S3A's
 * {@code InternalConstants.S3A_OPENFILE_KEYS}, but neither set exists in Hadoop 3.3.4 (what Spark 3.5
 * ships), where reading them fails the file system class's initialization. The key strings are
 * compile-time constants that javac inlines, so this class loads on any Hadoop 3; {@code OpenFileKeysTest}
 * holds the sets equal to those of the Hadoop the build compiles against.
 */
final class OpenFileKeys {
  /** Hadoop's standard keys, every store's. */
  static final Set<String> STANDARD = Set.of(FS_OPTION_OPENFILE_BUFFER_SIZE, FS_OPTION_OPENFILE_FOOTER_CACHE,
      FS_OPTION_OPENFILE_READ_POLICY, FS_OPTION_OPENFILE_LENGTH, FS_OPTION_OPENFILE_SPLIT_START, FS_OPTION_OPENFILE_SPLIT_END);
  /**
   * S3A's: the standard keys and its stream's own. Those tune S3A's stream, which the cache replaces, so
   * they are accepted and have no effect, as options a store does not use do for Hadoop's stores.
   */
  static final Set<String> S3A = Stream.concat(STANDARD.stream(),
      Stream.of("fs.s3a.input.async.drain.threshold", "fs.s3a.experimental.input.fadvise", "fs.s3a.readahead.range"))
      .collect(Collectors.toUnmodifiableSet());

  private OpenFileKeys() {}
}
