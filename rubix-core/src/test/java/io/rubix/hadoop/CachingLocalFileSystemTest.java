package io.rubix.hadoop;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.read.CachingInputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachingLocalFileSystemTest {
  @TempDir
  Path cacheDir;
  @TempDir
  Path dataDir;

  private FileSystem newFileSystem() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    return FileSystem.newInstance(URI.create("file:///"), conf);
  }

  @Test
  void openFileReadsThroughTheCache() throws Exception {
    Path file = Files.writeString(dataDir.resolve("data.txt"), "hello, cache");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    try (FileSystem fs = newFileSystem();
        FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path).build())) {
      assertThat(in.getWrappedStream()).isInstanceOf(CachingInputStream.class);
      assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo("hello, cache");
    }
  }

  @Test
  void openFileRejectsUnknownMandatoryOptionsAndToleratesOddLengths() throws Exception {
    Path file = Files.writeString(dataDir.resolve("data.txt"), "hello, cache");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    try (FileSystem fs = newFileSystem()) {
      assertThatThrownBy(() -> fs.openFile(path).must("fs.rubix.test.unknown", true).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("fs.rubix.test.unknown");
      try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(path)
          .must(Options.OpenFileOptions.FS_OPTION_OPENFILE_READ_POLICY, "random")
          .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, "12.0")
          .build())) {
        assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo("hello, cache");
      }
    }
  }
}
