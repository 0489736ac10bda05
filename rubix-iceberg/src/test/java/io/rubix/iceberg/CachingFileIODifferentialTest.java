package io.rubix.iceberg;

import static io.rubix.iceberg.IcebergFixtures.cachingS3;
import static io.rubix.iceberg.IcebergFixtures.plainS3;
import static io.rubix.iceberg.IcebergFixtures.randomBytes;
import static io.rubix.iceberg.IcebergFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.testing.S3Server;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random reads of random files, each through CachingFileIO and through the plain S3FileIO it wraps, byte
 * for byte: positioned reads, tails, seeks and sequential reads, with a cache so small that blocks are
 * evicted while they are read, and one with room for everything.
 *
 * <p>Seeded: the seed is printed and in every failure message; {@code -Drubix.fuzz.seed=N} replays it.
 */
class CachingFileIODifferentialTest {
  private static final long SEED = Long.getLong("rubix.fuzz.seed", System.nanoTime());
  private static final int BLOCK = 4096;
  private static S3Server server;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startServer() throws Exception {
    System.out.println("CachingFileIODifferentialTest seed: " + SEED + " (replay with -Drubix.fuzz.seed=" + SEED + ")");
    server = S3Server.inMemory();
    server.createBucket("fuzz");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  @Timeout(120)
  void cachedReadsEqualDirectReads() throws Exception {
    List<Map<String, String>> setups = List.of(
        Map.of("rubix.cache.max.size", Integer.toString(6 * BLOCK), "rubix.cache.fetch.chunk.size", Integer.toString(2 * BLOCK)),
        Map.of("rubix.cache.readahead.max", "0", "rubix.cache.fetch.tail.size", "0"));
    Random random = new Random(SEED);
    long reads = 0;
    for (int s = 0; s < setups.size(); s++) {
      try (S3FileIO plain = plainS3(server); CachingFileIO cached = cachingS3(server, tmp.resolve("cache-" + s), BLOCK, setups.get(s))) {
        List<String> paths = new ArrayList<>();
        for (int size : new int[] {1, BLOCK - 1, BLOCK, BLOCK + 1, 7 * BLOCK + 13, 99_991, 1 + random.nextInt(40 * BLOCK)}) {
          String path = "s3://fuzz/setup-" + s + "/file-" + paths.size() + "-" + size + ".parquet";
          write(plain, path, randomBytes(random, size));
          paths.add(path);
        }
        for (int op = 0; op < 600; op++) {
          String path = paths.get(random.nextInt(paths.size()));
          long length = plain.newInputFile(path).getLength();
          try (SeekableInputStream direct = plain.newInputFile(path, length).newStream();
              SeekableInputStream through = cached.newInputFile(path, length).newStream()) {
            compare(random, direct, through, path, length, op);
          }
          reads++;
        }
      }
    }
    assertThat(reads).isEqualTo(1200);
  }

  private static void compare(Random random, SeekableInputStream direct, SeekableInputStream through, String path, long length, int op)
      throws Exception {
    String what = "seed " + SEED + ", op " + op + ", " + path;
    int kind = random.nextInt(3);
    if (kind == 0) {
      long position = (long) (random.nextDouble() * length);
      int n = (int) Math.min(length - position, 1 + random.nextInt(6 * BLOCK));
      byte[] expected = new byte[n];
      byte[] actual = new byte[n + 2];
      ((RangeReadable) direct).readFully(position, expected, 0, n);
      ((RangeReadable) through).readFully(position, actual, 1, n);
      assertThat(Arrays.copyOfRange(actual, 1, n + 1)).as("%s: [%d, +%d)", what, position, n).isEqualTo(expected);
    } else if (kind == 1) {
      int n = (int) Math.min(length, 1 + random.nextInt(3 * BLOCK));
      byte[] expected = new byte[n];
      byte[] actual = new byte[n];
      assertThat(((RangeReadable) through).readTail(actual, 0, n)).isEqualTo(((RangeReadable) direct).readTail(expected, 0, n));
      assertThat(actual).as("%s: tail %d", what, n).isEqualTo(expected);
    } else {
      long position = (long) (random.nextDouble() * length);
      direct.seek(position);
      through.seek(position);
      for (int i = 0; i < 3; i++) {
        int n = 1 + random.nextInt(2 * BLOCK);
        byte[] expected = new byte[n];
        byte[] actual = new byte[n];
        int read = readUpTo(direct, expected);
        assertThat(readUpTo(through, actual)).as("%s: bytes read at %d", what, position).isEqualTo(read);
        assertThat(actual).as("%s: sequential at %d", what, position).isEqualTo(expected);
        assertThat(through.getPos()).as("%s: position after reading %d of %d at %d (direct stream at %d)", what, read, n, position,
            direct.getPos()).isEqualTo(position + read);
        position += read;
      }
    }
  }

  /** Reads until {@code buffer} is full or the stream ends; how many bytes were read. */
  private static int readUpTo(SeekableInputStream in, byte[] buffer) throws Exception {
    int read = 0;
    while (read < buffer.length) {
      int n = in.read(buffer, read, buffer.length - read);
      if (n < 0) {
        break;
      }
      read += n;
    }
    return read;
  }
}
