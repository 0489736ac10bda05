package io.rubix.hadoop;

import io.rubix.core.CacheEngine;
import io.rubix.core.read.CachingInputStream;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

/** Helpers shared by the cache tests of this package. */
final class CacheTestSupport {
  private CacheTestSupport() {}

  /** Settings for {@code file://} through {@link CachingLocalFileSystem} caching into {@code cacheDir}. */
  static Configuration localConf(Path cacheDir) {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set("rubix.cache.inflight.wait.timeout", "20s");
    return conf;
  }

  static void write(FileSystem fs, org.apache.hadoop.fs.Path path, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(data);
    }
  }

  static byte[] readAll(FileSystem fs, org.apache.hadoop.fs.Path path) throws IOException {
    byte[] bytes = new byte[(int) fs.getFileStatus(path).getLen()];
    try (FSDataInputStream in = fs.open(path)) {
      in.readFully(0, bytes);
    }
    return bytes;
  }

  static ObjectVersion version(FSDataInputStream in) {
    return ((CachingInputStream) in.getWrappedStream()).version();
  }

  /**
   * Waits (on the metadata service, no sleeping) until no block of {@code version} is being fetched
   * or written, so writes made in the background by earlier reads are committed or aborted.
   */
  static BlockRange awaitWrites(CacheEngine engine, ObjectVersion version) throws IOException, InterruptedException {
    int blocks = version.blockCount(engine.config().blockSize());
    return engine.service().awaitInFlight(version, 0, blocks, TimeUnit.SECONDS.toMillis(30));
  }

  /** The cache data files under {@code cacheDir}. */
  static List<Path> dataFiles(Path cacheDir) {
    try (Stream<Path> files = Files.walk(cacheDir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".blocks")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
