package io.rubix.iceberg;

import static io.rubix.iceberg.IcebergFixtures.cachingS3;
import static io.rubix.iceberg.IcebergFixtures.plainS3;
import static io.rubix.iceberg.IcebergFixtures.randomBytes;
import static io.rubix.iceberg.IcebergFixtures.readAll;
import static io.rubix.iceberg.IcebergFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.testing.S3Server;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CachingFileIO as a client of the node's BookKeeper ({@code rubix.cluster.embedded.mode=false}; the
 * BookKeeper started in this JVM by the first of them, {@code rubix.bookkeeper.embedded}, reached over
 * Thrift as a daemon is): a file one engine read without its length and kept is opened by another engine
 * of the node by its location alone, with no request to the store.
 */
class CachingFileIODaemonTest {
  private static final int BLOCK = 4096;

  @TempDir
  Path tmp;

  @Test
  void aFileOneEngineKeptIsOpenedByAnotherOfTheNodeByItsLocationAlone() throws Exception {
    try (S3Server server = S3Server.inMemory()) {
      server.createBucket("lake");
      byte[] data = randomBytes(new Random(5), 9 * BLOCK + 77);
      String path = "s3://lake/db/t/metadata/00003-5d1e77.metadata.json";
      try (S3FileIO plain = plainS3(server)) {
        write(plain, path, data);
      }
      Map<String, String> daemon = new HashMap<>();
      daemon.put("rubix.cluster.embedded.mode", "false");
      daemon.put("rubix.bookkeeper.embedded", "true");
      daemon.put("rubix.network.bookkeeper.server.port", "0");
      daemon.put("rubix.bookkeeper.metrics.port", "0");
      daemon.put("rubix.network.transfer.server.port", "0");
      Map<String, String> other = new HashMap<>(daemon);
      // another client setting: another engine of the JVM (as in another JVM of the node), the same BookKeeper
      other.put("rubix.network.client.read.timeout", "17s");
      try (CachingFileIO first = cachingS3(server, tmp.resolve("cache"), BLOCK, daemon);
          CachingFileIO second = cachingS3(server, tmp.resolve("cache"), BLOCK, other)) {
        server.store().reset();
        assertThat(readAll(first.newInputFile(path))).isEqualTo(data);
        assertThat(server.store().heads()).isZero();
        assertThat(server.store().gets()).isEqualTo(1);
        assertThat(first.engine().orElseThrow().service()).isInstanceOf(BookKeeperClient.class);

        server.store().reset();
        InputFile again = second.newInputFile(path);
        assertThat(second.engine().orElseThrow()).isNotSameAs(first.engine().orElseThrow());
        assertThat(second.engine().orElseThrow().service()).isInstanceOf(BookKeeperClient.class);
        assertThat(again.getLength()).isEqualTo(data.length);
        assertThat(readAll(again)).isEqualTo(data);
        assertThat(server.store().gets()).isZero();
        assertThat(server.store().heads()).isZero();
      }
    }
  }
}
