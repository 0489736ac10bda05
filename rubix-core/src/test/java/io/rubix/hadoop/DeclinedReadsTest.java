package io.rubix.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rubix.core.stats.CacheCounter;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whatever the cache declines, a stream reads it the way plain S3A would: a 16 MiB object read front to
 * back with 64 KiB {@code read()} calls makes a handful of GETs (plain S3A {@code classic}: one), not one
 * per call, whether a rule excludes it, its rule's quota is spent, TinyLFU refuses it, the disk has no
 * room or the metadata service is down. Counted at a real S3 server; the bytes are compared too. Time is
 * measured side by side with plain S3A in {@code ColdReadBenchmark} (its declined readers), not here.
 */
class DeclinedReadsTest {
  private static final int OBJECT = 16 << 20;
  private static final int READ = 64 << 10;
  /** A stream of the object in 64 KiB reads, as a few chunk-sized requests and the read-ahead's ramp-up. */
  private static final long MAX_GETS = 8;
  private static S3Server server;
  private static byte[] data;

  @TempDir
  Path cacheDir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("lake");
    data = new byte[OBJECT];
    new Random(21).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), server.s3aConfiguration())) {
      for (String name : new String[] {"tmp/object", "capped/spent", "capped/object", "hot/object", "scan/object", "any/object"}) {
        CacheTestSupport.write(fs, new org.apache.hadoop.fs.Path("s3a://lake/" + name), data);
      }
    }
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private Configuration conf(Consumer<Configuration> settings) {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.input.stream.type", "classic");
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    settings.accept(conf);
    return conf;
  }

  /** GETs of one stream reading {@code name} front to back in 64 KiB reads; fails unless the bytes are the object's. */
  private static long streamGets(FileSystem fs, String name) throws IOException {
    server.store().reset();
    byte[] read = new byte[OBJECT];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("s3a://lake/" + name))) {
      int at = 0;
      int n;
      while (at < OBJECT && (n = in.read(read, at, Math.min(READ, OBJECT - at))) > 0) {
        at += n;
      }
      assertThat(at).isEqualTo(OBJECT);
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(Arrays.equals(read, data)).as("bytes of %s equal the object's", name).isTrue();
    System.out.printf("DeclinedReadsTest: %s in 64 KiB reads, %d GETs%n", name, server.store().gets());
    return server.store().gets();
  }

  private static long count(FileSystem fs, CacheCounter counter) {
    return ((CachingS3AFileSystem) fs).cacheEngine().stats().get(counter);
  }

  @Test
  void plainS3aClassicMakesOneGet() throws Exception {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.input.stream.type", "classic");
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf)) {
      assertThat(streamGets(fs, "any/object")).isEqualTo(1);
    }
  }

  @Test
  void excludedPath() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf(conf -> {
      conf.set("rubix.cache.rules", "tmp");
      conf.set("rubix.cache.rule.tmp.paths", "s3a://lake/tmp/**");
      conf.set("rubix.cache.rule.tmp.action", "exclude");
    }))) {
      assertThat(streamGets(fs, "tmp/object")).isLessThanOrEqualTo(MAX_GETS);
    }
  }

  @Test
  void spentQuota() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf(conf -> {
      conf.set("rubix.cache.rules", "capped");
      conf.set("rubix.cache.rule.capped.paths", "s3a://lake/capped/**");
      conf.set("rubix.cache.rule.capped.quota", "1m");
    }))) {
      // the first stream caches the object's first 1 MiB (the quota) and is refused the rest; so is the second
      streamGets(fs, "capped/object");
      assertThat(streamGets(fs, "capped/object")).isLessThanOrEqualTo(MAX_GETS);
      assertThat(count(fs, CacheCounter.FALLBACK_NO_SPACE)).isPositive();
    }
  }

  @Test
  void admissionRefused() throws Exception {
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf(conf -> {
      conf.set("rubix.cache.eviction.policy", "tinylfu");
      conf.set("rubix.cache.max.size", "20m");
    }))) {
      for (int i = 0; i < 6; i++) {
        streamGets(fs, "hot/object");
      }
      long before = count(fs, CacheCounter.FALLBACK_NO_SPACE);
      assertThat(streamGets(fs, "scan/object")).isLessThanOrEqualTo(MAX_GETS);
      assertThat(count(fs, CacheCounter.FALLBACK_NO_SPACE)).as("the scan was refused").isGreaterThan(before);
    }
  }

  /** A real full disk: the cache directory on a 2 MiB tmpfs with a cap above it (root only: it mounts one). */
  @Test
  void fullDisk() throws Exception {
    Path disk = cacheDir.resolve("tmpfs");
    Files.createDirectories(disk);
    assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk.toString()) == 0, "mounting a tmpfs needs root");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf(conf -> {
      conf.set("rubix.cache.dirs", disk.toString());
      conf.set("rubix.cache.max.size", "64m");
    }))) {
      // the first stream fills the disk with the object's first blocks and is refused the rest; so is the second
      streamGets(fs, "any/object");
      assertThat(streamGets(fs, "any/object")).isLessThanOrEqualTo(MAX_GETS);
      assertThat(count(fs, CacheCounter.FALLBACK_NO_SPACE)).isPositive();
    } finally {
      assertThat(run("umount", disk.toString())).isZero();
    }
  }

  private static int run(String... command) throws IOException, InterruptedException {
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
  }

  @Test
  void metadataServiceDown() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    int port = closedPort;
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://lake/"), conf(conf -> {
      conf.set("rubix.cluster.embedded.mode", "false");
      conf.set("rubix.network.bookkeeper.server.port", Integer.toString(port));
    }))) {
      assertThat(streamGets(fs, "any/object")).isLessThanOrEqualTo(MAX_GETS);
      assertThat(count(fs, CacheCounter.FALLBACK_METADATA)).isPositive();
    }
  }
}
