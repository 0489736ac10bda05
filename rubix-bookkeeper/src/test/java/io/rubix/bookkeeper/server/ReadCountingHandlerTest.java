package io.rubix.bookkeeper.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.metadata.TestBlocks;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.thrift.TCacheException;
import io.rubix.spi.thrift.TObjectVersion;
import io.rubix.spi.thrift.TServiceInfo;
import io.rubix.spi.wire.ThriftCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon counts as read the blocks a reader reports, none of a new reader's status answer, and all of an older client's. */
class ReadCountingHandlerTest {
  private static final int BLOCK = 4096;

  @TempDir
  Path root;

  @Test
  void reportedReadsCountAndAnOlderClientsStatusAnswersDo() throws Exception {
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(64L * BLOCK))
        .leaseTimeout(Duration.ofSeconds(10)).build())) {
      BookKeeperHandler handler = new BookKeeperHandler(service, new TServiceInfo(ThriftCodec.PROTOCOL_VERSION, BLOCK, "test", 0),
          new ServerCounters(), Map::of, new EngineCounters());
      ObjectVersion version = new ObjectVersion("s3a://lake/db/t/part-0", 8L * BLOCK, 1, "e");
      BlockRange granted = service.acquire(version, 0, 8);
      assertThat(TestBlocks.commit(service, granted, BLOCK, 0, 1, 2, 3, 4, 5, 6, 7)).isEqualTo(8);
      TObjectVersion wire = ThriftCodec.toThrift(version);

      handler.status(wire, 2, 8, 4);
      assertThat(service.insight().tables().get(0).hitBlocks()).as("none: this caller reports its reads").isZero();
      handler.status(wire, 2, 8, -1); // what an older client's request holds: it sends no readBlock
      assertThat(service.insight().tables().get(0).hitBlocks()).as("blocks 2 to 7").isEqualTo(6);

      handler.reportReads(wire, List.of(0, 1));
      assertThat(service.insight().tables().get(0).hitBlocks()).isEqualTo(8);
      assertThatThrownBy(() -> handler.reportReads(wire, List.of(8))).isInstanceOf(TCacheException.class)
          .hasMessageContaining("Bad reportReads request");
      assertThatThrownBy(() -> handler.status(wire, 2, 8, 8)).isInstanceOf(TCacheException.class).hasMessageContaining("readBlock 8");
      assertThat(service.insight().tables().get(0).hitBlocks()).isEqualTo(8);
    }
  }
}
