package io.rubix.iceberg;

import static io.rubix.iceberg.IcebergFixtures.cachingS3;
import static io.rubix.iceberg.IcebergFixtures.plainS3;
import static io.rubix.iceberg.IcebergFixtures.randomBytes;
import static io.rubix.iceberg.IcebergFixtures.readAll;
import static io.rubix.iceberg.IcebergFixtures.write;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.IcebergKeys;
import io.rubix.testing.CountingBlobStore;
import io.rubix.testing.S3Server;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CachingFileIO over Iceberg's S3FileIO against the S3 test server, which counts what it serves: warm
 * reads make no request at all, a known length makes no HEAD, positioned reads and tails are right at
 * block boundaries, and writes and deletes through the FileIO never leave old bytes behind.
 */
class CachingFileIOS3Test {
  private static final int BLOCK = 4096;
  private static S3Server server;

  @TempDir
  Path tmp;
  private final Random random = new Random(24);
  private S3FileIO plain;
  private CachingFileIO io;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("lake");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void open() {
    plain = plainS3(server);
    io = cachingS3(server, tmp.resolve("cache"), BLOCK, Map.of());
  }

  @AfterEach
  void close() {
    io.close();
    plain.close();
  }

  private CountingBlobStore store() {
    return server.store();
  }

  @Test
  void aWarmReadMakesNoRequest() {
    byte[] data = randomBytes(random, 3 * 1024 * 1024 + 17);
    String path = "s3://lake/warm/data-0.parquet";
    write(plain, path, data);

    store().reset();
    assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);
    long coldGets = store().gets();
    long coldHeads = store().heads();
    System.out.printf("S3FileIO cold: %d GETs, %d HEADs, %d bytes served; ", coldGets, coldHeads, store().bytesServed());
    assertThat(coldGets).isPositive();
    assertThat(coldHeads).isZero();
    assertThat(store().bytesServed()).isLessThanOrEqualTo(data.length);

    store().reset();
    assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);
    System.out.printf("warm: %d GETs, %d HEADs%n", store().gets(), store().heads());
    assertThat(store().gets()).isZero();
    assertThat(store().heads()).isZero();
  }

  /**
   * Iceberg opens table metadata files and manifest lists without their length: the first read asks
   * the store what S3FileIO alone asks (one GET, no HEAD), and keeps the file; from then on, an open by
   * location alone asks nothing, from this FileIO or another over the same cache.
   */
  @Test
  void withoutALengthTheFirstReadAsksWhatTheDelegateAsksAndKeepsTheFile() {
    byte[] data = randomBytes(random, 10 * BLOCK + 5);
    String path = "s3://lake/length/00001-1c6b2a.metadata.json";
    write(plain, path, data);
    store().reset();
    assertThat(readAll(plain.newInputFile(path))).isEqualTo(data);
    long plainGets = store().gets();
    long plainHeads = store().heads();

    store().reset();
    assertThat(readAll(io.newInputFile(path))).isEqualTo(data);
    System.out.printf("without a length: S3FileIO %d GETs, %d HEADs; CachingFileIO cold %d GETs, %d HEADs, %d bytes; ", plainGets,
        plainHeads, store().gets(), store().heads(), store().bytesServed());
    assertThat(store().heads()).isEqualTo(plainHeads).isZero();
    assertThat(store().gets()).isEqualTo(plainGets);
    assertThat(store().bytesServed()).isEqualTo(data.length);

    store().reset();
    InputFile again = io.newInputFile(path);
    assertThat(again.getLength()).isEqualTo(data.length);
    assertThat(readAll(again)).isEqualTo(data);
    try (CachingFileIO other = cachingS3(server, tmp.resolve("cache"), BLOCK, Map.of())) {
      assertThat(readAll(other.newInputFile(path))).isEqualTo(data);
    }
    System.out.printf("warm %d GETs, %d HEADs%n", store().gets(), store().heads());
    assertThat(store().gets()).isZero();
    assertThat(store().heads()).isZero();

    store().reset();
    InputFile known = io.newInputFile(path, data.length);
    assertThat(known.getLength()).isEqualTo(data.length);
    assertThat(readAll(known)).isEqualTo(data);
    assertThat(store().heads()).isZero();
    assertThat(store().gets()).isZero();
  }

  /**
   * Avro readers (manifest lists) open the stream, then ask the length, for which S3FileIO sends a HEAD:
   * here the stream is read to its end instead (the GET the reader makes anyway), and the file is kept.
   * Asked before any stream is open, the length is the delegate's (a HEAD, as S3FileIO's).
   */
  @Test
  void aReaderAskingTheLengthAfterOpeningGetsItWithoutAHead() throws IOException {
    byte[] data = randomBytes(random, 7 * BLOCK + 100);
    String path = "s3://lake/length/snap-1-1-4be3.avro";
    write(plain, path, data);
    store().reset();
    assertThat(avroLikeRead(plain.newInputFile(path))).isEqualTo(data);
    long plainGets = store().gets();
    long plainHeads = store().heads();

    store().reset();
    assertThat(avroLikeRead(io.newInputFile(path))).isEqualTo(data);
    System.out.printf("open, then length: S3FileIO %d GETs, %d HEADs; CachingFileIO %d GETs, %d HEADs%n", plainGets, plainHeads,
        store().gets(), store().heads());
    assertThat(plainHeads).isEqualTo(1);
    assertThat(store().heads()).isZero();
    assertThat(store().gets()).isEqualTo(plainGets);

    store().reset();
    InputFile again = io.newInputFile(path);
    try (SeekableInputStream in = again.newStream()) {
      assertThat(again.getLength()).isEqualTo(data.length);
      in.seek(data.length - 10);
      assertThat(in.readNBytes(10)).isEqualTo(Arrays.copyOfRange(data, data.length - 10, data.length));
    }
    assertThat(store().heads()).isZero();
    assertThat(store().gets()).isZero();

    String other = "s3://lake/length/snap-2-1-77a0.avro";
    write(plain, other, data);
    store().reset();
    InputFile lengthFirst = io.newInputFile(other);
    assertThat(lengthFirst.getLength()).isEqualTo(data.length);
    assertThat(store().heads()).as("no stream open: the delegate's length").isEqualTo(1);
    assertThat(readAll(lengthFirst)).isEqualTo(data);
  }

  /** As Avro reads a file: the stream opened, then the length asked, then reads of at most 3000 bytes up to that length (no read of -1). */
  private static byte[] avroLikeRead(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      byte[] read = new byte[(int) file.getLength()];
      int done = 0;
      while (done < read.length) {
        done += in.read(read, done, Math.min(3000, read.length - done));
      }
      return read;
    }
  }

  /** A read that stops short of the end, or jumps, caches nothing: the next open reads through the delegate again, and right. */
  @Test
  void aFileNotReadWholeInOrderIsNotKept() throws IOException {
    byte[] data = randomBytes(random, 9 * BLOCK);
    String shortRead = "s3://lake/length/short.metadata.json";
    String jumped = "s3://lake/length/jumped.metadata.json";
    write(plain, shortRead, data);
    write(plain, jumped, data);
    try (SeekableInputStream in = io.newInputFile(shortRead).newStream()) {
      assertThat(in.readNBytes(4 * BLOCK)).isEqualTo(Arrays.copyOf(data, 4 * BLOCK));
    }
    try (SeekableInputStream in = io.newInputFile(jumped).newStream()) {
      in.seek(BLOCK);
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(data, BLOCK, data.length));
    }

    store().reset();
    assertThat(readAll(io.newInputFile(shortRead))).isEqualTo(data);
    assertThat(readAll(io.newInputFile(jumped))).isEqualTo(data);
    assertThat(store().gets()).isEqualTo(2);
    assertThat(store().heads()).isZero();
  }

  /**
   * A Hadoop table dropped and created again at its location writes {@code v1.metadata.json} again, through
   * Hadoop: the numbered metadata files and the version hint are read from the store every time, so the
   * new table is read whatever the old one's length was.
   */
  @Test
  void theNamesHadoopTablesWriteAgainAreAlwaysReadFromTheStore() {
    String metadata = "s3://lake/hadoop/db/t/metadata/v1.metadata.json";
    String hint = "s3://lake/hadoop/db/t/metadata/version-hint.text";
    byte[] first = randomBytes(random, 3 * BLOCK);
    write(plain, metadata, first);
    write(plain, hint, "1".getBytes(UTF_8));
    assertThat(readAll(io.newInputFile(metadata))).isEqualTo(first);
    assertThat(readAll(io.newInputFile(metadata, first.length))).isEqualTo(first);
    assertThat(readAll(io.newInputFile(hint))).containsExactly('1');

    for (byte[] again : List.of(randomBytes(random, 5 * BLOCK + 3), randomBytes(random, 5 * BLOCK + 3))) {
      plain.deleteFile(metadata);
      write(plain, metadata, again);
      write(plain, hint, "12".getBytes(UTF_8));
      store().reset();
      assertThat(readAll(io.newInputFile(metadata))).isEqualTo(again);
      assertThat(readAll(io.newInputFile(metadata, again.length))).isEqualTo(again);
      assertThat(readAll(io.newInputFile(hint))).containsExactly('1', '2');
      assertThat(store().gets()).as("each read from the store").isEqualTo(3);
    }
    for (String name : List.of("v1.metadata.json", "v12.gz.metadata.json", "v3.metadata.json.gz", "version-hint.text")) {
      assertThat(CachingFileIO.writtenAgain("s3://b/t/metadata/" + name)).as(name).isTrue();
    }
    for (String name : List.of("00001-6f5c2b1e-8d1a-4d5e-9a43-3c2f1b0e7d11.metadata.json", "snap-1-1-6f5c2b1e.avro", "6f5c2b1e-m0.avro",
        "v1.metadata.json.bak", "00000-0-6f5c2b1e-00001.parquet")) {
      assertThat(CachingFileIO.writtenAgain("s3://b/t/metadata/" + name)).as(name).isFalse();
    }
  }

  @Test
  void positionedReadsAndTailsAtBlockBoundaries() throws Exception {
    byte[] data = randomBytes(random, 5 * BLOCK + 123);
    String path = "s3://lake/ranges/data.parquet";
    write(plain, path, data);
    int[][] ranges = {{0, 1}, {0, BLOCK}, {BLOCK - 1, 2}, {BLOCK, BLOCK}, {2 * BLOCK - 1, BLOCK + 2}, {3 * BLOCK + 1, 2 * BLOCK + 122},
        {data.length - 1, 1}, {0, data.length}, {17, 0}};
    int[] tails = {1, 8, 123, 124, BLOCK + 123, 2 * BLOCK, data.length};
    for (int pass = 0; pass < 2; pass++) {
      store().reset();
      try (SeekableInputStream in = io.newInputFile(path, data.length).newStream()) {
        RangeReadable ranged = (RangeReadable) in;
        in.seek(BLOCK + 3);
        for (int[] range : ranges) {
          byte[] buffer = new byte[range[1] + 6];
          ranged.readFully(range[0], buffer, 3, range[1]);
          assertThat(Arrays.copyOfRange(buffer, 3, 3 + range[1])).as("[%d, +%d) pass %d", range[0], range[1], pass)
              .isEqualTo(Arrays.copyOfRange(data, range[0], range[0] + range[1]));
        }
        for (int tail : tails) {
          byte[] buffer = new byte[tail + 2];
          assertThat(ranged.readTail(buffer, 2, tail)).isEqualTo(tail);
          assertThat(Arrays.copyOfRange(buffer, 2, 2 + tail)).as("tail %d pass %d", tail, pass)
              .isEqualTo(Arrays.copyOfRange(data, data.length - tail, data.length));
        }
        byte[] longer = new byte[data.length + 10];
        assertThat(ranged.readTail(longer, 0, longer.length)).isEqualTo(data.length);
        assertThat(Arrays.copyOf(longer, data.length)).isEqualTo(data);
        assertThat(in.getPos()).as("positioned reads leave the position").isEqualTo(BLOCK + 3);
        assertThat(in.read()).isEqualTo(data[BLOCK + 3] & 0xff);
        assertThatThrownBy(() -> ranged.readFully(data.length - 2, new byte[3], 0, 3)).hasMessageContaining(path);
      }
      assertThat(store().heads()).isZero();
      if (pass == 1) {
        assertThat(store().gets()).as("second pass from the cache").isZero();
      }
    }
  }

  @Test
  void aFileWrittenThroughItReadsBack() {
    byte[] data = randomBytes(random, 3 * BLOCK + 1);
    String path = "s3://lake/written/metadata/v1.metadata.json";
    OutputFile output = io.newOutputFile(path);
    write(io, path, data);
    assertThat(readAll(io.newInputFile(path))).isEqualTo(data);
    assertThat(readAll(output.toInputFile())).isEqualTo(data);
    assertThat(readAll(plain.newInputFile(path))).isEqualTo(data);
  }

  @Test
  void anObjectWrittenAgainAtAPathIsReadNew() {
    String path = "s3://lake/rewritten/data.parquet";
    byte[] first = randomBytes(random, 4 * BLOCK);
    write(plain, path, first);
    assertThat(readAll(io.newInputFile(path, first.length))).isEqualTo(first);

    // deleted through the FileIO, a new object with a new length by another writer
    io.deleteFile(path);
    byte[] second = randomBytes(random, 6 * BLOCK + 9);
    write(plain, path, second);
    assertThat(readAll(io.newInputFile(path, second.length))).isEqualTo(second);
    assertThat(readAll(io.newInputFile(path))).isEqualTo(second);

    // deleted through the FileIO, a new object of the same length: only forgetting keeps the old bytes out
    io.deleteFile(path);
    byte[] third = randomBytes(random, second.length);
    write(plain, path, third);
    assertThat(readAll(io.newInputFile(path, third.length))).isEqualTo(third);

    // overwritten through the FileIO with the same length
    byte[] fourth = randomBytes(random, third.length);
    write(io, path, fourth);
    assertThat(readAll(io.newInputFile(path, fourth.length))).isEqualTo(fourth);
  }

  @Test
  void bulkAndPrefixDeletesForget() {
    List<String> bulk = List.of("s3://lake/bulk/a.parquet", "s3://lake/bulk/b.parquet");
    List<String> prefixed = List.of("s3://lake/prefix/x/a.parquet", "s3://lake/prefix/x/b.parquet", "s3://lake/prefix/y.avro");
    int length = 3 * BLOCK + 7;
    for (String path : concat(bulk, prefixed)) {
      byte[] data = randomBytes(random, length);
      write(plain, path, data);
      assertThat(readAll(io.newInputFile(path, length))).isEqualTo(data);
    }
    io.deleteFiles(bulk);
    io.deletePrefix("s3://lake/prefix/");
    for (String path : concat(bulk, prefixed)) {
      assertThat(plain.newInputFile(path).exists()).as(path).isFalse();
      byte[] again = randomBytes(random, length);
      write(plain, path, again);
      assertThat(readAll(io.newInputFile(path, length))).as(path).isEqualTo(again);
    }
  }

  @Test
  void aDeserializedCopyReadsThroughTheSameCache() throws Exception {
    byte[] data = randomBytes(random, 7 * BLOCK + 3);
    String path = "s3://lake/serialized/data.parquet";
    write(plain, path, data);
    assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    CachingFileIO copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (CachingFileIO) in.readObject();
    }
    try {
      store().reset();
      assertThat(readAll(copy.newInputFile(path, data.length))).isEqualTo(data);
      assertThat(store().gets()).as("the copy leases the same engine").isZero();
      assertThat(store().heads()).isZero();
      assertThat(copy.properties()).isEqualTo(io.properties());
    } finally {
      copy.close();
    }
    store().reset();
    assertThat(readAll(io.newInputFile(path, data.length))).isEqualTo(data);
    assertThat(store().gets()).as("closing the copy leaves the original's engine").isZero();
  }

  @Test
  void excludedPathsAndADisabledCacheReadTheDelegate() {
    byte[] data = randomBytes(random, 2 * BLOCK);
    String path = "s3://lake/excluded/data.parquet";
    write(plain, path, data);
    try (CachingFileIO excluding = cachingS3(server, tmp.resolve("excluding"), BLOCK,
        Map.of("rubix.cache.rules", "skip", "rubix.cache.rule.skip.paths", "s3://lake/excluded/**", "rubix.cache.rule.skip.action", "exclude"));
        CachingFileIO disabled = cachingS3(server, tmp.resolve("disabled"), BLOCK, Map.of("rubix.cache.enabled", "false"))) {
      for (CachingFileIO reader : List.of(excluding, disabled)) {
        InputFile file = reader.newInputFile(path, data.length);
        assertThat(file).isNotInstanceOf(CachingInputFile.class);
        assertThat(readAll(file)).isEqualTo(data);
        store().reset();
        assertThat(readAll(reader.newInputFile(path, data.length))).isEqualTo(data);
        assertThat(store().gets()).isPositive();
      }
    }
  }

  @Test
  void badSettingsFailAtInitialization() {
    assertThatThrownBy(() -> cachingS3(server, tmp.resolve("bad"), BLOCK, Map.of("rubix.cache.block.size", "1k")))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.cache.block.size");
    assertThatThrownBy(() -> cachingS3(server, tmp.resolve("bad"), BLOCK, Map.of(IcebergKeys.DELEGATE_IO_IMPL.name(), CachingFileIO.class.getName())))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining(IcebergKeys.DELEGATE_IO_IMPL.name());
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
  }
}
