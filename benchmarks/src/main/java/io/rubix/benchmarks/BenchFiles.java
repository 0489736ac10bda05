package io.rubix.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/** Scratch directories and data files for the benchmarks. */
final class BenchFiles {
  /** Where benchmark files go: {@code -Drubix.bench.dir=...}, else {@code java.io.tmpdir}. */
  static final String DIR_PROPERTY = "rubix.bench.dir";

  private BenchFiles() {}

  static Path newScratchDir(String prefix) throws IOException {
    Path parent = Path.of(System.getProperty(DIR_PROPERTY, System.getProperty("java.io.tmpdir")));
    Files.createDirectories(parent);
    return Files.createTempDirectory(parent, prefix);
  }

  /** Pseudo-random (incompressible) bytes, the same for the same seed. */
  static byte[] randomBytes(int length, long seed) {
    byte[] bytes = new byte[length];
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < length; i += 8) {
      long value = random.nextLong();
      for (int j = 0; j < 8 && i + j < length; j++) {
        bytes[i + j] = (byte) (value >>> (8 * j));
      }
    }
    return bytes;
  }

  /** Writes {@code length} pseudo-random bytes to {@code file} in 1 MiB pieces. */
  static void writeRandomFile(Path file, long length, long seed) throws IOException {
    int piece = 1 << 20;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long at = 0; at < length; at += piece) {
        ByteBuffer bytes = ByteBuffer.wrap(randomBytes((int) Math.min(piece, length - at), seed + at));
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
      }
    }
  }

  static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads exactly {@code dst.remaining()} bytes at {@code position} of {@code channel}. */
  static void readFully(FileChannel channel, long position, ByteBuffer dst) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        throw new IOException("Unexpected end of file at " + at);
      }
      at += n;
    }
  }
}
