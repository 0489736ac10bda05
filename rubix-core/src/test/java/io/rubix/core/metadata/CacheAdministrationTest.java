package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CachedFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operator calls of the in-process service: largest cached files and clearing everything. */
class CacheAdministrationTest {
  private static final int BLOCK = 4096;

  @TempDir
  Path root;

  private static void cache(InProcessMetadataService service, ObjectVersion version, int blocks) throws Exception {
    BlockRange granted = service.acquire(version, 0, blocks);
    int[] indexes = new int[blocks];
    for (int i = 0; i < blocks; i++) {
      indexes[i] = i;
    }
    assertThat(TestBlocks.commit(service, granted, BLOCK, indexes)).isEqualTo(blocks);
  }

  @Test
  void topFilesListsTheLargestFirstAndClearDropsEverything() throws Exception {
    try (InProcessMetadataService service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(1L << 20))
        .leaseTimeout(Duration.ofSeconds(60)).build())) {
      ObjectVersion small = new ObjectVersion("s3a://b/small", BLOCK, 1, "e1");
      ObjectVersion large = new ObjectVersion("s3a://b/large", 10L * BLOCK, 1, "e2");
      ObjectVersion half = new ObjectVersion("s3a://b/half", 6L * BLOCK, 1, "e3");
      cache(service, small, 1);
      cache(service, large, 10);
      cache(service, half, 3);

      List<CachedFile> top = service.topFiles(2);
      assertThat(top).extracting(CachedFile::version).containsExactly(large, half);
      assertThat(top.get(1)).extracting(CachedFile::chargedBytes, CachedFile::cachedBlocks, CachedFile::blocks)
          .containsExactly(3L * BLOCK + DiskCharge.OBJECT_OVERHEAD, 3, 6);
      assertThat(service.topFiles(100)).hasSize(3);
      assertThatThrownBy(() -> service.topFiles(0)).isInstanceOf(IllegalArgumentException.class);

      List<Path> dataFiles = service.topFiles(3).stream().map(f -> Path.of(f.dataFile())).toList();
      assertThat(service.clear()).isEqualTo(3);
      assertThat(service.usage().usedBytes()).isZero();
      assertThat(service.topFiles(10)).isEmpty();
      assertThat(dataFiles).allSatisfy(f -> assertThat(f).doesNotExist());
      assertThat(service.status(large, 0, 10).allCached(0, 10)).isFalse();
    }
  }
}
