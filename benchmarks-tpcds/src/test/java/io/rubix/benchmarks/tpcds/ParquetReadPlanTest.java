package io.rubix.benchmarks.tpcds;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerProcess;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a cold read of a real Parquet file costs at the S3 server through RubiX, against the same read
 * through plain S3A: Parquet's own reader (the one under Spark's vectorized reader), which reads the
 * column chunks it needs with {@code seek} and {@code readFully} (serial reads: Hadoop vectored reads
 * are off by default in Parquet 1.15), must not make RubiX fetch the columns it skips.
 */
class ParquetReadPlanTest {
  private static final int ROWS = 100_000;
  private static final int PAD = 40;
  /** Parquet reads a run of adjacent column chunks in buffers of at most this many bytes ({@code parquet.read.allocation.size}). */
  private static final int PARQUET_READ_BUFFER = 8 << 20;
  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
      "message t { required int64 a; required binary pad1; required int64 c; required binary pad2; }");
  private static final MessageType A_AND_C = MessageTypeParser.parseMessageType("message t { required int64 a; required int64 c; }");
  /** A wide column after {@code a}: {@code a} and {@code wide} are one run of 10.8 MB, which Parquet reads in two buffers. */
  private static final MessageType WIDE_SCHEMA = MessageTypeParser.parseMessageType(
      "message t { required int64 a; required binary wide; required binary pad1; required int64 c; required binary pad2; }");
  private static final MessageType A_WIDE_AND_C = MessageTypeParser.parseMessageType(
      "message t { required int64 a; required binary wide; required int64 c; }");
  private static final int WIDE = 100;
  @TempDir
  static Path serverDir;
  private static S3ServerProcess server;

  @TempDir
  Path temp;

  @BeforeAll
  static void startServer() throws Exception {
    server = TpcdsBenchmark.startS3Server(serverDir.resolve("data"), serverDir.resolve("s3server.log"));
    server.createBucket("parquet");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private static Configuration s3aConfiguration() {
    Configuration conf = new Configuration();
    server.s3aSettings().forEach(conf::set);
    return conf;
  }

  /**
   * One row group, each column chunk written after the last: number columns {@code a} and {@code c}
   * (800 KB each), each followed by a 4 MB column of random bytes ({@code pad1}, {@code pad2}); with
   * {@code wide}, a 10 MB column of random bytes between {@code a} and {@code pad1}.
   */
  private static void writeTable(org.apache.hadoop.fs.Path path, Configuration conf, MessageType schema) throws Exception {
    Random random = new Random(42);
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    boolean wide = schema.containsField("wide");
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(HadoopOutputFile.fromPath(path, conf)).withType(schema)
        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withDictionaryEncoding(false).withRowGroupSize(256L << 20)
        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0).build()) {
      for (int row = 0; row < ROWS; row++) {
        Group group = groups.newGroup().append("a", (long) row);
        if (wide) {
          group.append("wide", Binary.fromConstantByteArray(bytes(random, WIDE)));
        }
        group.append("pad1", Binary.fromConstantByteArray(bytes(random, PAD))).append("c", row * 7L);
        group.append("pad2", Binary.fromConstantByteArray(bytes(random, PAD)));
        writer.write(group);
      }
    }
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Reads the columns of {@code projection} (a, c, and wide if named) of every row with Parquet's reader; returns the row count plus every value that is wrong. */
  private static long read(org.apache.hadoop.fs.Path path, Configuration conf, MessageType projection) throws Exception {
    Configuration projected = new Configuration(conf);
    projected.set(ReadSupport.PARQUET_READ_SCHEMA, projection.toString());
    boolean wide = projection.containsField("wide");
    long rows = 0;
    long wrong = 0;
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), path).withConf(projected).build()) {
      for (Group group = reader.read(); group != null; group = reader.read()) {
        long a = group.getLong("a", 0);
        if (a != rows || group.getLong("c", 0) != 7 * a || (wide && group.getBinary("wide", 0).length() != WIDE)) {
          wrong++;
        }
        rows++;
      }
    }
    return rows + wrong;
  }

  /** The S3 server's counts of a cold read of {@code projection} through plain S3A (its classic stream, which fetches what is asked) and through RubiX, and of a warm one. */
  private ReadCosts costs(String name, MessageType schema, MessageType projection) throws Exception {
    URI bucket = URI.create("s3a://parquet/");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://parquet/table/" + name + ".parquet");
    Configuration plain = s3aConfiguration();
    plain.set("fs.s3a.input.stream.type", "classic");
    writeTable(path, plain, schema);
    server.reset();
    assertThat(read(path, plain, projection)).isEqualTo(ROWS);
    S3ServerControl.Counters direct = server.counters();

    Configuration conf = s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("fs.s3a.impl.disable.cache", "true");
    conf.set("rubix.cache.dirs", temp.resolve("cache").toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    server.reset();
    try (FileSystem fs = FileSystem.newInstance(bucket, conf)) {
      assertThat(read(path, conf, projection)).isEqualTo(ROWS);
      S3ServerControl.Counters cold = server.counters();
      server.reset();
      assertThat(read(path, conf, projection)).isEqualTo(ROWS);
      return new ReadCosts(fs.getFileStatus(path).getLen(), direct, cold, server.counters());
    }
  }

  private record ReadCosts(long length, S3ServerControl.Counters direct, S3ServerControl.Counters cold, S3ServerControl.Counters warm) {
    @Override
    public String toString() {
      return "file " + length + " bytes; direct " + direct.gets() + " GETs " + direct.bytes() + " bytes; RubiX cold " + cold.gets() + " GETs "
          + cold.bytes() + " bytes; warm " + warm.gets() + " GETs";
    }
  }

  /** Two column chunks of 800 KB 4 MB apart: RubiX fetches their blocks, the tail, and nothing between. */
  @Test
  void aColdReadOfTwoColumnsFetchesAboutWhatPlainS3AFetches() throws Exception {
    ReadCosts costs = costs("two-columns", SCHEMA, A_AND_C);
    System.err.println("parquet read plan, two columns: " + costs);
    assertThat(costs.length()).as("two 4 MB pad columns").isGreaterThan(8_000_000L);
    assertThat(costs.cold().bytes()).as(costs.toString()).isLessThanOrEqualTo((long) (costs.direct().bytes() * 1.3));
    assertThat(costs.warm().gets()).as("a warm read sends no GET: " + costs).isZero();
  }

  /**
   * Parquet reads a run of adjacent column chunks (a and wide, 10.8 MB) in buffers of 8 MiB, each read
   * continuing the one before: that is one range the reader named, not a sequential scan, so nothing
   * past it is read ahead (the 4 MB pad columns around c).
   */
  @Test
  void aColumnRunReadInSeveralBuffersIsNotReadPast() throws Exception {
    ReadCosts costs = costs("wide-run", WIDE_SCHEMA, A_WIDE_AND_C);
    System.err.println("parquet read plan, a run of chunks larger than Parquet's read buffer: " + costs);
    assertThat(costs.length()).as("a and wide need two of Parquet's read buffers").isGreaterThan(PARQUET_READ_BUFFER + 8_000_000L);
    assertThat(costs.cold().bytes()).as(costs.toString()).isLessThanOrEqualTo((long) (costs.direct().bytes() * 1.3));
    assertThat(costs.warm().gets()).as("a warm read sends no GET: " + costs).isZero();
  }
}
