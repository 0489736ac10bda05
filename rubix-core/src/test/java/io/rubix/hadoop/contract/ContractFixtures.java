package io.rubix.hadoop.contract;

import io.rubix.spi.config.CacheKeys;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/**
 * What the contract suites of one test JVM share: a cache directory under {@code target/} and one
 * S3 server, both created on first use; the server is stopped by a shutdown hook.
 *
 * <p>The caches use small blocks, chunks and read-ahead windows so that the suites' 64 KiB to 1 MiB
 * test files span many blocks and exercise block boundaries, chunked fetches and read-ahead.
 */
final class ContractFixtures {
  private static final java.util.concurrent.atomic.AtomicInteger BUCKETS = new java.util.concurrent.atomic.AtomicInteger();

  private static Path cacheDir;
  private static S3Server server;

  private ContractFixtures() {}

  /** Settings of the caches under test: this JVM's cache directory and blocks small enough to split every test file. */
  static void configureCache(Configuration conf) {
    conf.set(CacheKeys.DIRS.name(), cacheDir().toString());
    conf.set(CacheKeys.BLOCK_SIZE.name(), "4k");
    conf.set(CacheKeys.FETCH_CHUNK.name(), "16k");
    conf.set(CacheKeys.READAHEAD_MAX.name(), "32k");
    conf.setBoolean(CacheKeys.JMX_ENABLED.name(), false);
  }

  static synchronized Path cacheDir() {
    if (cacheDir == null) {
      try {
        Path parent = Files.createDirectories(Path.of("target", "contract-cache"));
        cacheDir = Files.createTempDirectory(parent.toAbsolutePath(), "jvm-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return cacheDir;
  }

  /** Creates a new, empty bucket on this JVM's S3 server and returns its name. */
  static String newBucket() {
    String bucket = "contract-" + BUCKETS.incrementAndGet();
    s3Server().createBucket(bucket);
    return bucket;
  }

  /** The S3 server of this JVM. */
  static synchronized S3Server s3Server() {
    if (server == null) {
      try {
        S3Server started = S3Server.inMemory();
        Runtime.getRuntime().addShutdownHook(new Thread(started::close, "contract-s3-server-stop"));
        server = started;
      } catch (Exception e) {
        throw new IllegalStateException("Starting S3Proxy failed", e);
      }
    }
    return server;
  }
}
