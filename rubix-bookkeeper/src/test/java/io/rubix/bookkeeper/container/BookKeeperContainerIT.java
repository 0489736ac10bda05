package io.rubix.bookkeeper.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rubix.bookkeeper.BookKeeperTestSupport;
import io.rubix.bookkeeper.metrics.Exposition;
import io.rubix.hadoop.CachingS3AFileSystem;
import io.rubix.spi.config.CacheKeys;
import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds docker/Dockerfile with podman and runs the image on the host network: a reader in this JVM
 * reads an object from an S3 server on loopback through the containerised BookKeeper, the second read
 * gets no byte from S3, the container is killed with SIGKILL, a new container on the same cache volume
 * recovers the journal and the read is warm again. Opt-in: {@code -Pcontainer-it} (docs/deploy.md).
 */
@Tag("container")
class BookKeeperContainerIT {
  private static final String IMAGE = "localhost/rubix-bookkeeper:it";
  private static final Duration HEALTH_DEADLINE = Duration.ofSeconds(120);

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path work;

  @Test
  void readsThroughTheContainerAndStayWarmAfterKillNine() throws Exception {
    Podman podman = new Podman(work);
    assumeTrue(podman.available(), "podman is not available: install it (apt-get install -y podman runc) to run this test");
    String base = System.getProperty("rubix.it.base.image", "localhost/rubix-base:bookworm");
    assumeTrue(podman.imageExists(base), "base image " + base + " is missing: run docker/build-base.sh (or set -Drubix.it.base.image)");
    Path repo = Path.of("").toAbsolutePath().getParent();
    String version = System.getProperty("rubix.version", "0.1.0-SNAPSHOT");
    assertThat(repo.resolve("rubix-bookkeeper/target/rubix-" + version + "/bin/rubix-bookkeeper"))
        .as("the distribution (package phase)").isExecutable();

    long buildStart = System.nanoTime();
    podman.build(repo, repo.resolve("docker/Dockerfile"), IMAGE, List.of("BASE_IMAGE=" + base, "RUBIX_VERSION=" + version));
    System.out.printf("CONTAINER_IT image built in %d ms%n", Duration.ofNanos(System.nanoTime() - buildStart).toMillis());
    // --format docker keeps the HEALTHCHECK (the OCI format drops it)
    String config = podman.exec(Duration.ofSeconds(30), "image", "inspect", IMAGE, "--format",
        "{{.Config.User}} {{json .Config.ExposedPorts}} {{json .Config.Volumes}} {{json .HealthCheck}}").out();
    assertThat(config).contains("rubix:rubix", "\"8897/tcp\"", "\"8898/tcp\"", "\"8899/tcp\"", "\"/var/cache/rubix\"",
        "\"Test\":[\"CMD\",\"/opt/rubix/docker/healthcheck.sh\"]");

    // the cache directory at the same path in the container and here: readers write the data files themselves
    Path cache = Files.createDirectories(work.resolve("cache"));
    int port = freePort();
    int metricsPort = freePort();
    int transferPort = freePort();
    List<String> runArgs = List.of(
        "-v", cache + ":" + cache + ":U",
        "-e", "RUBIX_OVERRIDES=-Drubix.cache.dirs=" + cache + " -Drubix.cache.max.size=256m -Drubix.cluster.node.id=container-it"
            + " -Drubix.network.bookkeeper.server.port=" + port + " -Drubix.bookkeeper.metrics.port=" + metricsPort
            + " -Drubix.network.transfer.server.port=" + transferPort,
        "-e", "RUBIX_BOOKKEEPER_OPTS=-Xms64m -Xmx256m -XX:+ExitOnOutOfMemoryError -Drubix.root.logger=INFO,console");
    String name = "rubix-it-" + ProcessHandle.current().pid();

    try (S3Server s3 = S3Server.inMemory()) {
      s3.createBucket("bucket");
      String path = "s3a://bucket/container/part-0.bin";
      byte[] data = write(s3.s3aConfiguration(), path, 3 * 1024 * 1024 + 17);
      Configuration conf = s3.s3aConfiguration();
      conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
      conf.set(CacheKeys.BLOCK_SIZE.name(), "64k"); // the daemon's default: a client with another block size reads the source
      BookKeeperTestSupport.useDaemon(conf, cache, port);

      podman.runDetached(name, runArgs, IMAGE);
      try {
        awaitHealthy(podman, name);
        // the daemon runs as rubix (1899) and made its root group-shared (docs/operations.md)
        assertThat(Files.getAttribute(cache.resolve("bookkeeper"), "unix:uid")).isEqualTo(1899);
        assertThat((Integer) Files.getAttribute(cache.resolve("bookkeeper"), "unix:mode") & 07777).isEqualTo(02770);
        s3.store().reset();
        assertThat(read(conf, path, data.length)).isEqualTo(data);
        assertThat(s3.store().bytesServed()).as("cold read from S3").isGreaterThanOrEqualTo(data.length);
        s3.store().reset();
        assertThat(read(conf, path, data.length)).isEqualTo(data);
        assertThat(s3.store().gets()).as("GETs of the warm read").isZero();
        assertThat(s3.store().bytesServed()).as("bytes from S3 of the warm read").isZero();
        assertThat(Exposition.scrape(metricsPort).value("rubix_cache_used_bytes")).isEqualTo(3 * 1024 * 1024 + 4096 + 4096);

        podman.exec(Duration.ofSeconds(30), "kill", "-s", "KILL", name).requireSuccess(List.of("kill", name));
        Podman.Result exited = podman.exec(Duration.ofSeconds(30), "wait", name);
        assertThat(exited.out().strip()).as("exit code after SIGKILL").isEqualTo("137");
        podman.exec(Duration.ofSeconds(30), "rm", "-v", name).requireSuccess(List.of("rm", name));

        long restart = System.nanoTime();
        podman.runDetached(name, runArgs, IMAGE);
        awaitHealthy(podman, name);
        System.out.printf("CONTAINER_IT healthy %d ms after the new container was started%n", Duration.ofNanos(System.nanoTime() - restart).toMillis());
        assertThat(Exposition.scrape(metricsPort).value("rubix_cache_recovered_blocks")).as("blocks recovered from the journal").isEqualTo(13);
        s3.store().reset();
        assertThat(read(conf, path, data.length)).isEqualTo(data);
        assertThat(s3.store().gets()).as("GETs after kill -9 and a new container").isZero();
        assertThat(s3.store().bytesServed()).isZero();
      } finally {
        Podman.Result logs = podman.exec(Duration.ofSeconds(30), "logs", name);
        System.out.println("CONTAINER_IT logs of " + name + ":\n" + logs.out() + logs.err());
        podman.exec(Duration.ofSeconds(60), "rm", "-f", "-v", name); // -v: the anonymous volume of the image's VOLUME
      }
    }
  }

  /**
   * Polls the image's health check script ({@code rubix status}) until it passes; fails at once if the
   * container stopped. Through {@code podman exec}, whose exit code is the script's: in one run here
   * {@code podman healthcheck run} answered 0 once before the new daemon listened (not understood).
   */
  private static void awaitHealthy(Podman podman, String name) throws IOException {
    long deadline = System.nanoTime() + HEALTH_DEADLINE.toNanos();
    Podman.Result last;
    do {
      String state = podman.exec(Duration.ofSeconds(30), "inspect", "--format", "{{.State.Status}}", name).out().strip();
      if (!state.equals("running")) {
        Podman.Result logs = podman.exec(Duration.ofSeconds(30), "logs", name);
        throw new AssertionError("container " + name + " is " + state + ":\n" + logs.out() + logs.err());
      }
      last = podman.exec(Duration.ofSeconds(60), "exec", name, "/opt/rubix/docker/healthcheck.sh");
      if (last.exitCode() == 0) {
        return;
      }
    } while (System.nanoTime() < deadline);
    throw new AssertionError("container " + name + " not healthy within " + HEALTH_DEADLINE + ": " + last.out() + last.err());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static byte[] write(Configuration conf, String path, int size) throws IOException {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
        FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path))) {
      out.write(data);
    }
    return data;
  }

  private static byte[] read(Configuration conf, String path, int size) throws IOException {
    byte[] bytes = new byte[size];
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://bucket/"), conf);
        FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      in.readFully(0, bytes);
    }
    return bytes;
  }
}
