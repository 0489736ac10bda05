package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.readAll;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With immutable freshness a version is the path and the length, so a file deleted and written again with
 * the same length through the file system has the same key: the write or delete must forget everything
 * cached of it, its tail in memory included.
 */
class ImmutableRewriteTest {
  @TempDir
  Path tmp;

  @Test
  void aFileWrittenAgainWithTheSameLengthIsReadNew() throws Exception {
    Configuration conf = localConf(tmp.resolve("cache"));
    conf.set("rubix.cache.freshness", "immutable");
    Random random = new Random(7);
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("data").toUri().toString(), "small.orc");
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      for (boolean delete : new boolean[] {true, false}) {
        byte[] first = new byte[20_000];
        random.nextBytes(first);
        write(fs, path, first);
        assertThat(readAll(fs, path)).isEqualTo(first);
        if (delete) {
          fs.delete(path, false);
        }
        byte[] second = new byte[first.length];
        random.nextBytes(second);
        write(fs, path, second);
        assertThat(readAll(fs, path)).as(delete ? "deleted, then written" : "overwritten").isEqualTo(second);
      }
    }
  }
}
