package io.rubix.hadoop;

import static io.rubix.hadoop.CacheTestSupport.localConf;
import static io.rubix.hadoop.CacheTestSupport.readAll;
import static io.rubix.hadoop.CacheTestSupport.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With immutable freshness a version is the path and the length, so a file deleted and written again with
 * the same length through the file system has the same key: the write or delete must forget everything
 * cached of it, its tail in memory included, also when what was deleted or renamed was a directory above it.
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

  @Test
  void aFileUnderADeletedOrRenamedDirectoryWrittenAgainWithTheSameLengthIsReadNew() throws Exception {
    Configuration conf = localConf(tmp.resolve("cache"));
    conf.set("rubix.cache.freshness", "immutable");
    Random random = new Random(11);
    org.apache.hadoop.fs.Path table = new org.apache.hadoop.fs.Path(tmp.resolve("warehouse").toUri().toString(), "table");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(table, "year=2026/part-0.orc");
    // a sibling whose name starts with the directory's: not under it, so still cached afterwards
    org.apache.hadoop.fs.Path sibling = new org.apache.hadoop.fs.Path(table.getParent(), "table2/part-0.orc");
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      byte[] siblingBytes = new byte[3_000];
      random.nextBytes(siblingBytes);
      write(fs, sibling, siblingBytes);
      assertThat(readAll(fs, sibling)).isEqualTo(siblingBytes);
      for (String change : new String[] {"deleted", "renamed away"}) {
        byte[] first = new byte[300_000];
        random.nextBytes(first);
        write(fs, path, first);
        assertThat(readAll(fs, path)).isEqualTo(first);
        if (change.equals("deleted")) {
          assertThat(fs.delete(table, true)).isTrue();
        } else {
          org.apache.hadoop.fs.Path moved = new org.apache.hadoop.fs.Path(table.getParent(), "moved");
          assertThat(fs.rename(table, moved)).isTrue();
          assertThat(fs.delete(moved, true)).isTrue();
        }
        // as a committer does it: the new file written in a staging directory, which is renamed into place
        byte[] second = new byte[first.length];
        random.nextBytes(second);
        org.apache.hadoop.fs.Path staging = new org.apache.hadoop.fs.Path(table.getParent(), ".staging");
        write(fs, new org.apache.hadoop.fs.Path(staging, "year=2026/part-0.orc"), second);
        assertThat(fs.rename(staging, table)).isTrue();
        // compared as a whole, not with isEqualTo, which would print 300,000 bytes twice
        assertThat(Arrays.equals(readAll(fs, path), second))
            .as("the table directory %s, then the file written again under a staging directory renamed into place", change).isTrue();
      }
      assertThat(fs.getFileStatus(sibling).getLen()).isEqualTo(siblingBytes.length);
      long engineHitsBefore = ((HasCacheEngine) fs).cacheEngine().stats().snapshot().getOrDefault("rubix_cache_hit_bytes", 0L);
      assertThat(readAll(fs, sibling)).isEqualTo(siblingBytes);
      long engineHitsAfter = ((HasCacheEngine) fs).cacheEngine().stats().snapshot().getOrDefault("rubix_cache_hit_bytes", 0L);
      assertThat(engineHitsAfter - engineHitsBefore).as("the sibling table stayed cached").isEqualTo(siblingBytes.length);
    }
  }
}
