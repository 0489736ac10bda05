package io.rubix.core.cluster.rest;

import static io.rubix.core.cluster.rest.EngineAnswers.activeStats;
import static io.rubix.core.cluster.rest.EngineAnswers.array;
import static io.rubix.core.cluster.rest.EngineAnswers.failedStats;
import static io.rubix.core.cluster.rest.EngineAnswers.trinoUri;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.rest.LoopbackHttpServer.Answer;
import io.rubix.hadoop.CachingLocalFileSystem;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A caching file system with {@code rubix.cluster.manager=trino}: split locations name the workers the
 * coordinator lists, follow its failure detector, and the membership bean lives as long as the file system.
 */
class RestLocalityTest {
  private static final int SPLIT = 64 << 10;
  private static final int SPLITS = 40;

  @TempDir
  Path tmp;

  @Test
  void splitLocationsFollowTheCoordinatorsNodeList() throws Exception {
    List<String> workers = List.of("worker-1.example.com", "worker-2.example.com", "worker-3.example.com");
    AtomicReference<String> failed = new AtomicReference<>("[]");
    try (LoopbackHttpServer coordinator = new LoopbackHttpServer()) {
      coordinator.on("/v1/node", request -> Answer.json(array(workers.stream().map(w -> activeStats(trinoUri(w))).toList())));
      coordinator.on("/v1/node/failed", request -> Answer.json(failed.get()));
      Configuration conf = new Configuration();
      conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
      conf.setBoolean("fs.file.impl.disable.cache", true);
      conf.set("rubix.cache.dirs", Files.createDirectories(tmp.resolve("cache")).toString());
      conf.set("rubix.cache.block.size", "64k");
      conf.set("rubix.cache.filesplit.size", "64k");
      conf.set("rubix.cluster.manager", "trino");
      conf.set("rubix.cluster.presto.coordinator.url", coordinator.url().toString());
      conf.set("rubix.cluster.presto.include-coordinator", "false");
      conf.set("rubix.cluster.refresh.interval", "50ms");
      conf.set("rubix.cluster.rest.initial.wait", "20s");
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(tmp.resolve("data.bin").toUri());
      Set<ObjectName> before = beans();
      ObjectName bean;
      try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
        try (FSDataOutputStream out = fs.create(path, true)) {
          out.write(new byte[SPLITS * SPLIT]);
        }
        Set<ObjectName> added = beans();
        added.removeAll(before);
        assertThat(added).hasSize(1);
        bean = added.iterator().next();

        BlockLocation[] locations = fs.getFileBlockLocations(path, 0, Long.MAX_VALUE);
        assertThat(locations).hasSize(SPLITS);
        Set<String> hosts = hosts(locations);
        assertThat(hosts).as("40 splits over 3 workers").containsExactlyInAnyOrderElementsOf(workers);

        failed.set(array(List.of(failedStats(trinoUri("worker-2.example.com")))));
        Await.until("worker-2 gone from the locations", Duration.ofSeconds(20), () -> {
          try {
            return !hosts(fs.getFileBlockLocations(path, 0, Long.MAX_VALUE)).contains("worker-2.example.com");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        assertThat(hosts(fs.getFileBlockLocations(path, 0, Long.MAX_VALUE))).containsExactlyInAnyOrder("worker-1.example.com", "worker-3.example.com");
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "NodeCount")).isEqualTo(2);
      }
      assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(bean)).as("unregistered when the file system closes").isFalse();
    }
  }

  private static Set<String> hosts(BlockLocation[] locations) throws java.io.IOException {
    Set<String> hosts = new HashSet<>();
    for (BlockLocation location : locations) {
      hosts.addAll(Arrays.asList(location.getHosts()));
    }
    return hosts;
  }

  private static Set<ObjectName> beans() throws Exception {
    return new HashSet<>(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("io.rubix:type=ClusterMembership,*"), null));
  }
}
