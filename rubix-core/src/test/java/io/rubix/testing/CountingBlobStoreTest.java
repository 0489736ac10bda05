package io.rubix.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the test server counts and delays: GETs, HEADs and LISTs through a plain S3A client. */
class CountingBlobStoreTest {
  private static final Duration METADATA_LATENCY = Duration.ofMillis(150);
  private static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket("counted");
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void countsListsAndDelaysHeadsAndListsOnlyWhenAskedTo() throws Exception {
    Configuration conf = server.s3aConfiguration();
    Path file = new Path("s3a://counted/dir/object");
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://counted/"), conf)) {
      try (OutputStream out = fs.create(file)) {
        out.write(new byte[] {1, 2, 3});
      }
      CountingBlobStore store = server.store();
      store.reset();

      assertThat(fs.listStatus(new Path("s3a://counted/dir"))).hasSize(1);
      assertThat(store.lists()).isPositive();
      assertThat(fs.getFileStatus(file).getLen()).isEqualTo(3);
      assertThat(store.heads()).isPositive();

      store.setMetadataLatency(METADATA_LATENCY);
      try {
        long headsBefore = store.heads();
        long start = System.nanoTime();
        fs.getFileStatus(file);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(METADATA_LATENCY);
        assertThat(store.heads()).isGreaterThan(headsBefore);

        long listsBefore = store.lists();
        start = System.nanoTime();
        fs.listStatus(new Path("s3a://counted/dir"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(METADATA_LATENCY);
        assertThat(store.lists()).isGreaterThan(listsBefore);
      } finally {
        store.setMetadataLatency(Duration.ZERO);
      }

      store.reset();
      assertThat(store.lists()).isZero();
      assertThat(store.heads()).isZero();
    }
  }
}
