package io.rubix.iceberg;

import static io.rubix.iceberg.IcebergFixtures.cacheProperties;
import static io.rubix.iceberg.IcebergFixtures.cachingS3;
import static io.rubix.iceberg.IcebergFixtures.randomBytes;
import static io.rubix.iceberg.IcebergFixtures.readAll;
import static io.rubix.iceberg.IcebergFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.config.IcebergKeys;
import io.rubix.testing.CountingBlobStore;
import io.rubix.testing.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.util.SerializableSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CachingFileIO over HadoopFileIO on plain S3A, and beside a caching Hadoop file system reading the same objects. */
class CachingFileIOHadoopTest {
  private static final int BLOCK = 64 * 1024;
  private static S3Server server;

  @TempDir
  Path tmp;
  private final Random random = new Random(11);

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("lake");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static CountingBlobStore store() {
    return server.store();
  }

  @Test
  void overHadoopFileIOAWarmReadMakesNoRequest() throws Exception {
    CachingFileIO io = new CachingFileIO();
    Configuration conf = server.s3aConfiguration();
    // S3A's classic stream: the analytics stream asks for the object's status at every open and keeps its own memory cache
    conf.set("fs.s3a.input.stream.type", "classic");
    io.setConf(conf);
    Map<String, String> properties = cacheProperties(tmp.resolve("cache"), BLOCK);
    properties.put(IcebergKeys.DELEGATE_IO_IMPL.name(), HadoopFileIO.class.getName());
    io.initialize(properties);
    try (io) {
      assertThat(io.delegate()).isInstanceOf(HadoopFileIO.class);
      byte[] data = randomBytes(random, 2 * 1024 * 1024 + 5);
      String path = "s3a://lake/hadoop/data-0.parquet";
      write(io, path, data);

      store().reset();
      assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);
      System.out.printf("HadoopFileIO over S3A cold: %d GETs, %d HEADs; ", store().gets(), store().heads());
      assertThat(store().gets()).isPositive();
      assertThat(store().heads()).as("ranges opened with the length known").isZero();

      store().reset();
      assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);
      System.out.printf("warm: %d GETs, %d HEADs%n", store().gets(), store().heads());
      assertThat(store().gets()).isZero();
      assertThat(store().heads()).isZero();

      // as Spark ships a table's FileIO: the Hadoop configuration serialized by the engine's supplier, for both
      io.serializeConfWith(SerializableConfiguration::new);
      try (CachingFileIO copy = roundTrip(io)) {
        assertThat(copy.getConf().get("fs.s3a.endpoint")).isEqualTo(server.endpoint());
        String other = "s3a://lake/hadoop/data-1.parquet";
        byte[] more = randomBytes(random, 300_000);
        write(copy, other, more);
        store().reset();
        assertThat(readAll(copy.newInputFile(other, more.length))).isEqualTo(more);
        assertThat(readAll(copy.newInputFile(path, data.length))).isEqualTo(data);
        assertThat(store().heads()).isZero();
      }
    }
  }

  /** A serializable supplier of a Hadoop configuration, as Spark's {@code SerializableConfiguration}. */
  private static final class SerializableConfiguration implements SerializableSupplier<Configuration> {
    private static final long serialVersionUID = 1L;
    private final transient Configuration conf;
    private final Map<String, String> entries = new java.util.HashMap<>();

    SerializableConfiguration(Configuration conf) {
      this.conf = conf;
      conf.forEach(entry -> entries.put(entry.getKey(), entry.getValue()));
    }

    @Override
    public Configuration get() {
      if (conf != null) {
        return conf;
      }
      Configuration copy = new Configuration(false);
      entries.forEach(copy::set);
      return copy;
    }
  }

  private static CachingFileIO roundTrip(CachingFileIO io) throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      return (CachingFileIO) in.readObject();
    }
  }

  /**
   * A version is the path and the length, as the Hadoop file systems' versions of paths with immutable
   * freshness: the same object read through S3FileIO and then through CachingS3AFileSystem at the same
   * s3a:// path, into the same cache directory, is fetched once.
   */
  @Test
  void sharesBlocksWithACachingHadoopFileSystemOfImmutableFreshness() throws Exception {
    Path cacheDir = tmp.resolve("shared");
    byte[] data = randomBytes(random, 1536 * 1024 + 3);
    String path = "s3a://lake/shared/data-0.parquet";
    try (CachingFileIO io = cachingS3(server, cacheDir, BLOCK, Map.of())) {
      write(io, path, data);
      store().reset();
      assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);
      assertThat(store().gets()).isPositive();

      Configuration conf = server.s3aConfiguration();
      conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
      cacheProperties(cacheDir, BLOCK).forEach(conf::set);
      conf.set("rubix.cache.freshness", "immutable");
      store().reset();
      try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf);
          FSDataInputStream in = fs.openFile(new org.apache.hadoop.fs.Path(path))
              .opt(Options.OpenFileOptions.FS_OPTION_OPENFILE_LENGTH, Long.toString(data.length)).build().get()) {
        byte[] read = new byte[data.length];
        in.readFully(0, read);
        assertThat(read).isEqualTo(data);
      }
      assertThat(store().gets()).isZero();
      assertThat(store().heads()).isZero();
    }
  }
}
