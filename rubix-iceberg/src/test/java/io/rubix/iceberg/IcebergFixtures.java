package io.rubix.iceberg;

import io.rubix.spi.config.IcebergKeys;
import io.rubix.testing.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/** The FileIOs of the tests: S3FileIO against the S3 test server, plain or wrapped by a CachingFileIO caching into a test directory. */
final class IcebergFixtures {
  private IcebergFixtures() {}

  /** S3FileIO's catalog properties for {@code server}: endpoint override, path-style access, the server's static credentials. */
  static Map<String, String> s3Properties(S3Server server) {
    Map<String, String> properties = new HashMap<>();
    properties.put("s3.endpoint", server.endpoint());
    properties.put("s3.path-style-access", "true");
    properties.put("s3.access-key-id", S3Server.ACCESS_KEY);
    properties.put("s3.secret-access-key", S3Server.SECRET_KEY);
    properties.put("client.region", "us-east-1");
    properties.put("init-creation-stacktrace", "false");
    return properties;
  }

  /** The cache settings of the tests: {@code cacheDir}, {@code blockSize}, no JMX beans. */
  static Map<String, String> cacheProperties(Path cacheDir, int blockSize) {
    Map<String, String> properties = new HashMap<>();
    properties.put("rubix.cache.dirs", cacheDir.toString());
    properties.put("rubix.cache.block.size", Integer.toString(blockSize));
    properties.put("rubix.cache.jmx.enabled", "false");
    return properties;
  }

  static S3FileIO plainS3(S3Server server) {
    S3FileIO io = new S3FileIO();
    io.initialize(s3Properties(server));
    return io;
  }

  /** A CachingFileIO over S3FileIO, with {@code extra} properties over the test's. */
  static CachingFileIO cachingS3(S3Server server, Path cacheDir, int blockSize, Map<String, String> extra) {
    Map<String, String> properties = s3Properties(server);
    properties.putAll(cacheProperties(cacheDir, blockSize));
    properties.put(IcebergKeys.DELEGATE_IO_IMPL.name(), S3FileIO.class.getName());
    properties.putAll(extra);
    CachingFileIO io = new CachingFileIO();
    io.initialize(properties);
    return io;
  }

  static byte[] randomBytes(Random random, int length) {
    byte[] data = new byte[length];
    random.nextBytes(data);
    return data;
  }

  static void write(FileIO io, String path, byte[] data) {
    try (PositionOutputStream out = io.newOutputFile(path).createOrOverwrite()) {
      out.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every byte of {@code file}, read sequentially through its stream. */
  static byte[] readAll(InputFile file) {
    try (SeekableInputStream in = file.newStream()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[10_000];
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
