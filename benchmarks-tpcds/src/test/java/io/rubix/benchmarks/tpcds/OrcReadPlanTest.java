package io.rubix.benchmarks.tpcds;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.stats.CacheCounter;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.testing.S3ServerControl;
import io.rubix.testing.S3ServerProcess;
import java.net.URI;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;
import org.apache.orc.Writer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a cold and a warm read of a real ORC file (Apache ORC's own reader, the one Spark uses) cost at
 * the S3 server through RubiX's default fetch plan: the tail in the first GET, one GET per group of
 * adjacent column streams, nothing between; a warm read sends no GET and reads the footer from memory.
 */
class OrcReadPlanTest {
  private static final int ROWS = 100_000;
  private static final int PAD = 40;
  @TempDir
  static Path serverDir;
  private static S3ServerProcess server;

  @TempDir
  Path temp;

  @BeforeAll
  static void startServer() throws Exception {
    server = TpcdsBenchmark.startS3Server(serverDir.resolve("data"), serverDir.resolve("s3server.log"));
    server.createBucket("orc");
  }

  private static Configuration s3aConfiguration() {
    Configuration conf = new Configuration();
    server.s3aSettings().forEach(conf::set);
    return conf;
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  /**
   * One stripe of four columns, each written after the last: two small number columns ({@code a},
   * {@code c}) each followed by a 4 MB column of random bytes, so that a reader of {@code a} and
   * {@code c} needs two byte ranges 4 MB apart.
   */
  private static void writeTable(FileSystem fs, org.apache.hadoop.fs.Path path, Configuration conf) throws Exception {
    TypeDescription schema = TypeDescription.fromString("struct<a:bigint,pad1:binary,c:bigint,pad2:binary>");
    Random random = new Random(42);
    try (Writer writer = OrcFile.createWriter(path, OrcFile.writerOptions(conf).fileSystem(fs).setSchema(schema)
        .compress(CompressionKind.NONE).stripeSize(256L << 20).blockPadding(false))) {
      VectorizedRowBatch batch = schema.createRowBatch();
      for (int row = 0; row < ROWS; row++) {
        int r = batch.size++;
        ((LongColumnVector) batch.cols[0]).vector[r] = row;
        byte[] pad1 = new byte[PAD];
        random.nextBytes(pad1);
        ((BytesColumnVector) batch.cols[1]).setVal(r, pad1);
        ((LongColumnVector) batch.cols[2]).vector[r] = row * 7L;
        byte[] pad2 = new byte[PAD];
        random.nextBytes(pad2);
        ((BytesColumnVector) batch.cols[3]).setVal(r, pad2);
        if (batch.size == batch.getMaxSize()) {
          writer.addRowBatch(batch);
          batch.reset();
        }
      }
      if (batch.size > 0) {
        writer.addRowBatch(batch);
      }
    }
  }

  /** Reads columns a and c of every row; returns the sum of c - 7a (zero when every value is right) plus the row count. */
  private static long readAC(FileSystem fs, org.apache.hadoop.fs.Path path, Configuration conf) throws Exception {
    try (Reader reader = OrcFile.createReader(path, OrcFile.readerOptions(conf).filesystem(fs))) {
      assertThat(reader.getStripes()).hasSize(1);
      boolean[] include = {true, true, false, true, false};
      long rows = 0;
      long wrong = 0;
      try (RecordReader rowsReader = reader.rows(reader.options().include(include))) {
        VectorizedRowBatch batch = reader.getSchema().createRowBatch();
        while (rowsReader.nextBatch(batch)) {
          LongColumnVector a = (LongColumnVector) batch.cols[0];
          LongColumnVector c = (LongColumnVector) batch.cols[2];
          for (int r = 0; r < batch.size; r++) {
            wrong += c.vector[r] - 7 * a.vector[r];
            if (a.vector[r] != rows + r) {
              wrong++;
            }
          }
          rows += batch.size;
        }
      }
      return rows + wrong;
    }
  }

  /** Reads columns a and pad1 (adjacent in the file) of every row; returns the row count. */
  private static long readAPad(FileSystem fs, org.apache.hadoop.fs.Path path, Configuration conf) throws Exception {
    try (Reader reader = OrcFile.createReader(path, OrcFile.readerOptions(conf).filesystem(fs))) {
      boolean[] include = {true, true, true, false, false};
      long rows = 0;
      try (RecordReader rowsReader = reader.rows(reader.options().include(include))) {
        VectorizedRowBatch batch = reader.getSchema().createRowBatch();
        while (rowsReader.nextBatch(batch)) {
          rows += batch.size;
        }
      }
      return rows;
    }
  }

  @Test
  void adjacentColumnStreamsAreFetchedInOneGet() throws Exception {
    URI bucket = URI.create("s3a://orc/");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://orc/table/part-1.orc");
    Configuration plainConf = s3aConfiguration();
    try (FileSystem plain = FileSystem.newInstance(bucket, plainConf)) {
      writeTable(plain, path, plainConf);
    }
    Configuration conf = s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", temp.resolve("cache").toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    try (FileSystem fs = FileSystem.newInstance(bucket, conf)) {
      server.reset();
      assertThat(readAPad(fs, path, conf)).isEqualTo(ROWS);
      S3ServerControl.Counters cold = server.counters();
      // ORC asks for the streams of a and pad1 as ranges of one vectored read: their blocks touch, so one GET
      // fetches them all (without grouping, one GET per range: 4 in all), and the tail one more
      assertThat(cold.gets()).as("GETs of a cold read of two adjacent columns").isEqualTo(2);
      assertThat(cold.bytes()).as("the 4 MB of pad1 and the tail, not pad2's 4 MB").isLessThan(4_500_000L);
    }
  }

  @Test
  void aColdReadOfTwoColumnsMakesOneGetForTheTailAndOnePerColumnGroupAndAWarmReadNone() throws Exception {
    URI bucket = URI.create("s3a://orc/");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("s3a://orc/table/part-0.orc");
    Configuration plainConf = s3aConfiguration();
    long length;
    StripeInformation stripe;
    try (FileSystem plain = FileSystem.newInstance(bucket, plainConf)) {
      writeTable(plain, path, plainConf);
      length = plain.getFileStatus(path).getLen();
      try (Reader reader = OrcFile.createReader(path, OrcFile.readerOptions(plainConf).filesystem(plain))) {
        stripe = reader.getStripes().get(0);
      }
    }
    assertThat(length).as("well above the whole-object size (1m), so it is fetched in parts").isGreaterThan(4L << 20);
    // the layout the expectation rests on: the stripe footer lies in the file's last 64 KiB, the tail fetched with the first miss
    assertThat(length - (stripe.getOffset() + stripe.getLength() - stripe.getFooterLength())).isLessThan(64 * 1024);

    Configuration conf = s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", temp.resolve("cache").toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    try (FileSystem fs = FileSystem.newInstance(bucket, conf)) {
      CachingS3AFileSystem caching = (CachingS3AFileSystem) fs;
      server.reset();

      assertThat(readAC(fs, path, conf)).isEqualTo(ROWS);
      S3ServerControl.Counters cold = server.counters();
      long coldGets = cold.gets();
      long coldBytes = cold.bytes();
      // the tail (64 KiB: postscript, footer, stripe statistics, stripe footer); the stripe's indexes and column a,
      // which follow each other at the stripe's start; column c, 4 MB further on. Never the pad columns.
      assertThat(coldGets).as("GETs of a cold read of columns a and c").isEqualTo(3);
      assertThat(coldBytes).as("bytes of a cold read: at most two 256 KiB blocks per GET, not the 8 MB of pad columns")
          .isLessThanOrEqualTo(6L * 256 * 1024);

      server.reset();
      long tailBefore = caching.cacheEngine().stats().get(CacheCounter.TAIL_MEMORY_BYTES);
      assertThat(readAC(fs, path, conf)).isEqualTo(ROWS);
      S3ServerControl.Counters warm = server.counters();
      assertThat(warm.gets()).as("a warm read sends no GET").isZero();
      assertThat(warm.bytes()).isZero();
      assertThat(caching.cacheEngine().stats().get(CacheCounter.TAIL_MEMORY_BYTES) - tailBefore)
          .as("the footer and stripe footer come from the tail kept in memory").isPositive();
    }
  }
}
