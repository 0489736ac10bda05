package io.rubix.bookkeeper.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.read.session.Source;
import io.rubix.core.read.session.StaleVersionException;
import io.rubix.hadoop.CachingFileSystem;
import io.rubix.hadoop.CachingLocalFileSystem;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.ObjectVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An owner opens the file system a caching class wraps, and reads only the version a peer names. */
class SourceFileSystemsTest {
  @TempDir
  Path tmp;

  private CacheConfig cacheConfig() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cache.dirs", tmp.resolve("cache").toString());
    return CacheConfig.from(conf);
  }

  @Test
  void cachingClassesAreReplacedByTheFileSystemTheyWrap() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
    conf.set("fs.gs.impl", CachingFileSystem.class.getName());
    conf.set("rubix.fs.gs.wrapped.impl", RawLocalFileSystem.class.getName());
    conf.set("fs.abfs.impl", CachingFileSystem.class.getName());
    conf.set("rubix.fs.abfs.wrapped.impl", CachingLocalFileSystem.class.getName());
    try (SourceFileSystems sources = new SourceFileSystems(conf, cacheConfig())) {
      assertThat(sources.underlyingConf("s3a").get("fs.s3a.impl")).isEqualTo(S3AFileSystem.class.getName());
      assertThat(sources.underlyingConf("s3a").get("fs.s3a.input.stream.type")).isEqualTo("classic");
      assertThat(sources.underlyingConf("file").get("fs.file.impl")).isEqualTo(LocalFileSystem.class.getName());
      assertThat(sources.underlyingConf("gs").get("fs.gs.impl")).isEqualTo(RawLocalFileSystem.class.getName());
      assertThatThrownBy(() -> sources.underlyingConf("abfs")).hasMessageContaining("fs.abfs.impl");
    }
  }

  @Test
  void readsOnlyTheVersionAsked() throws Exception {
    Path file = tmp.resolve("object.bin");
    Files.write(file, new byte[] {1, 2, 3, 4, 5});
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
    try (SourceFileSystems sources = new SourceFileSystems(conf, cacheConfig());
        FileSystem local = FileSystem.newInstance(file.toUri(), new Configuration())) {
      FileStatus status = local.getFileStatus(new org.apache.hadoop.fs.Path(file.toUri()));
      String path = status.getPath().toString();
      ObjectVersion version = new ObjectVersion(path, 5, status.getModificationTime(), "");
      byte[] bytes = new byte[3];
      sources.open(version).readFully(1, bytes, 0, 3);
      assertThat(bytes).containsExactly(2, 3, 4);

      Source otherLength = sources.open(new ObjectVersion(path, 6, status.getModificationTime(), ""));
      assertThatThrownBy(() -> otherLength.readFully(0, new byte[1], 0, 1)).isInstanceOf(StaleVersionException.class);
      Source otherTime = sources.open(new ObjectVersion(path, 5, status.getModificationTime() - 5000, ""));
      assertThatThrownBy(() -> otherTime.readFully(0, new byte[1], 0, 1)).isInstanceOf(StaleVersionException.class);
      Source gone = sources.open(new ObjectVersion(path + ".gone", 5, 1, ""));
      assertThatThrownBy(() -> gone.readFully(0, new byte[1], 0, 1)).isInstanceOf(StaleVersionException.class);
    }
  }

  /** A file system of the test scheme {@code counted} that counts the instances open. */
  public static final class CountedFileSystem extends RawLocalFileSystem {
    static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public void initialize(java.net.URI uri, Configuration conf) throws java.io.IOException {
      super.initialize(uri, conf);
      OPEN.incrementAndGet();
    }

    @Override
    public String getScheme() {
      return "counted";
    }

    @Override
    public void close() throws java.io.IOException {
      if (closed.compareAndSet(false, true)) {
        OPEN.decrementAndGet();
      }
      super.close();
    }
  }

  @Test
  void fileSystemsPerAuthorityAreBoundedAndClosed() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.counted.impl", CountedFileSystem.class.getName());
    CountedFileSystem.OPEN.set(0);
    try (SourceFileSystems sources = new SourceFileSystems(conf, cacheConfig())) {
      for (int i = 0; i < 3 * SourceFileSystems.MAX_FILE_SYSTEMS; i++) {
        sources.open(new ObjectVersion("counted://bucket-" + i + "/object", 5, 1, ""));
        assertThat(CountedFileSystem.OPEN.get()).as("file systems open after %s authorities", i + 1)
            .isLessThanOrEqualTo(SourceFileSystems.MAX_FILE_SYSTEMS);
      }
      assertThat(CountedFileSystem.OPEN.get()).isPositive();
    }
    assertThat(CountedFileSystem.OPEN.get()).as("closed with the sources").isZero();
  }
}
