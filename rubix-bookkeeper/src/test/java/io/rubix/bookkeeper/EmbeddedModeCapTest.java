package io.rubix.bookkeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.metadata.EmbeddedServices;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9, scenario 8: embedded-mode JVMs (Spark executors by default) on the same cache directory
 * hold one cap between them, not one each.
 */
class EmbeddedModeCapTest {
  private static final int BLOCK = 64 * 1024;
  private static final long CAP = 16L * BLOCK;
  private static final int OBJECTS = 4;
  private static final int BLOCKS = 8;

  @TempDir
  Path cacheDir;

  @Test
  void twoEmbeddedJvmsOnOneDirectoryNeverExceedItsCap() throws Exception {
    CacheConfig config = EmbeddedFillMain.config(cacheDir, BLOCK, CAP);
    DiskUsageSampler usage = new DiskUsageSampler(cacheDir);
    int recovered;
    try (ChildJvm other = ChildJvm.start("embedded-fill", EmbeddedFillMain.class, List.of("-Xmx128m"),
        List.of(cacheDir.toString(), Integer.toString(BLOCK), Long.toString(CAP), "child", Integer.toString(OBJECTS), Integer.toString(BLOCKS)))) {
      String filled = other.awaitLine(line -> line.startsWith("FILLED "), Duration.ofSeconds(60));
      assertThat(filled).as(other.diagnostics()).isNotNull();
      assertThat(Integer.parseInt(filled.substring("FILLED ".length()))).as("blocks the first JVM cached").isPositive();

      // this JVM starts while the other one runs, with the same directory and cap, and tries as hard
      try (EmbeddedServices.Handle handle = EmbeddedServices.acquire(config)) {
        int granted = EmbeddedFillMain.fill(handle.service(), "parent", OBJECTS, BLOCKS);
        usage.sample();
        assertThat(granted).as("blocks the second JVM cached in a directory whose cap the first one holds").isZero();
      }
      assertThat(usage.maxData + usage.maxMeta).as("bytes allocated in %s: %s", cacheDir, usage.worst).isLessThanOrEqualTo(CAP);
      assertThat(usage.maxData).as("the first JVM's cache is on disk").isPositive();

      other.send("exit");
      assertThat(other.awaitExit(Duration.ofSeconds(60))).as(other.diagnostics()).isZero();
    }
    // the first JVM is gone: the next one takes the directory over and keeps its cache
    try (EmbeddedServices.Handle handle = EmbeddedServices.acquire(config)) {
      recovered = (int) handle.service().counters().recoveredBlocks();
      EmbeddedFillMain.fill(handle.service(), "after", OBJECTS, BLOCKS);
      usage.sample();
    }
    assertThat(recovered).as("blocks recovered from the first JVM's journal").isPositive();
    assertThat(usage.maxData + usage.maxMeta).as("bytes allocated in %s: %s", cacheDir, usage.worst).isLessThanOrEqualTo(CAP);
  }
}
