package io.rubix.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.config.Admission;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.cluster.ClusterListener;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import io.rubix.spi.cluster.LocalIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterManagersTest {
  @TempDir
  Path dir;

  @Test
  void nodeListsAcceptHostsPortsIdsAndIpv6() {
    List<ClusterNode> nodes = NodeList.parse("a=Host-1:9000, host-2 ,[::1]:7000\n# comment, ignored\nc=10.0.0.3 # trailing\n fe80::1", 8899, "test");
    assertThat(nodes).containsExactly(
        new ClusterNode("a", "host-1", 9000),
        new ClusterNode("host-2", "host-2", 8899),
        new ClusterNode("::1", "::1", 7000),
        new ClusterNode("c", "10.0.0.3", 8899),
        new ClusterNode("fe80::1", "fe80::1", 8899));
    assertThatThrownBy(() -> NodeList.parse("a=h1,a=h2", 1, "the list")).hasMessageContaining("Node id a appears twice in the list");
    assertThatThrownBy(() -> NodeList.parse("h1:x", 1, "the list")).hasMessageContaining("Bad node entry 'h1:x' in the list");
    assertThatThrownBy(() -> NodeList.parse("h1:70000", 1, "the list")).hasMessageContaining("outside 1-65535");
    assertThatThrownBy(() -> NodeList.parse("=h1", 1, "the list")).hasMessageContaining("Bad node entry");
  }

  @Test
  void configDefaultsAndValidation() {
    Configuration conf = new Configuration(false);
    ClusterConfig none = ClusterConfig.from(conf);
    assertThat(none.enabled()).isFalse();
    assertThat(none.admission()).isEqualTo(Admission.ALL);
    assertThat(none.splitSize()).isEqualTo(256L << 20);
    assertThat(none.preferredHosts()).isEqualTo(1);
    assertThat(none.refreshInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(ClusterSetup.manager(conf, none)).isNull();
    assertThat(ClusterSetup.locality(conf)).isNull();

    conf.set("rubix.cluster.manager", "static");
    assertThat(ClusterConfig.from(conf).admission()).isEqualTo(Admission.OWNER_ONLY);
    conf.set("rubix.cache.admission", "all");
    assertThat(ClusterConfig.from(conf).admission()).isEqualTo(Admission.ALL);
    assertThatThrownBy(() -> ClusterSetup.manager(conf, ClusterConfig.from(conf)))
        .isInstanceOf(InvalidConfigException.class).hasMessageContaining("rubix.cluster.nodes");

    Configuration bad = new Configuration(false);
    bad.set("rubix.cluster.preferred.hosts", "4");
    assertThatThrownBy(() -> ClusterConfig.from(bad)).hasMessageContaining("rubix.cluster.preferred.hosts");
    bad.set("rubix.cluster.preferred.hosts", "2");
    bad.set("rubix.cache.filesplit.size", "32k");
    assertThatThrownBy(() -> ClusterConfig.from(bad)).hasMessageContaining("rubix.cache.filesplit.size").hasMessageContaining("rubix.cache.block.size");
    bad.set("rubix.cache.filesplit.size", "1m");
    bad.set("rubix.cache.admission", "some");
    assertThatThrownBy(() -> ClusterConfig.from(bad)).hasMessageContaining("rubix.cache.admission").hasMessageContaining("owner-only");
    bad.set("rubix.cache.admission", "owner-only");
    bad.set("rubix.cluster.manager", "file");
    assertThatThrownBy(() -> ClusterSetup.manager(bad, ClusterConfig.from(bad))).hasMessageContaining("rubix.cluster.nodes.file");
    bad.set("rubix.cluster.manager", "com.example.NoSuchManager");
    assertThatThrownBy(() -> ClusterSetup.manager(bad, ClusterConfig.from(bad))).hasMessageContaining("rubix.cluster.manager")
        .hasMessageContaining("com.example.NoSuchManager");
  }

  @Test
  void staticManagerFindsTheConfiguredNodeAndAClassNameManagerIsBuiltFromConf() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", "a=host-1,b=host-2:9000,c=host-3");
    conf.set("rubix.cluster.node.id", "b");
    try (ClusterManager manager = ClusterSetup.manager(conf, ClusterConfig.from(conf))) {
      assertThat(manager.view().nodes()).extracting(ClusterNode::id).containsExactly("a", "b", "c");
      assertThat(manager.view().local()).contains(new ClusterNode("b", "host-2", 9000));
    }
    conf.set("rubix.cluster.manager", FixedManager.class.getName());
    try (ClusterManager manager = ClusterSetup.manager(conf, ClusterConfig.from(conf))) {
      assertThat(manager).isInstanceOf(FixedManager.class);
      assertThat(manager.view().nodes()).hasSize(1);
    }
  }

  /** A manager named by class. */
  public static final class FixedManager implements ClusterManager {
    private final ClusterView view;

    public FixedManager(Configuration conf) {
      view = ClusterView.of(List.of(ClusterNode.of(conf.get("rubix.cluster.node.id"), 1)), LocalIdentity.ofNodeId(conf.get("rubix.cluster.node.id")), 1);
    }

    @Override
    public ClusterView view() {
      return view;
    }

    @Override
    public void addListener(ClusterListener listener) {}

    @Override
    public void close() {}
  }

  @Test
  void fileManagerRereadsTheFileWhenItChangesAndKeepsTheLastListWhenItCannot() throws Exception {
    Path file = dir.resolve("nodes");
    Files.writeString(file, "a=host-1\nb=host-2\n");
    // an hour: only explicit refresh() calls re-read the file
    FileClusterManager manager = new FileClusterManager(file, 8899, LocalIdentity.ofNames(List.of("host-2")), Duration.ofHours(1));
    try {
      ClusterView first = manager.view();
      assertThat(first.nodes()).extracting(ClusterNode::id).containsExactly("a", "b");
      assertThat(first.local()).map(ClusterNode::id).contains("b");

      manager.refresh();
      assertThat(manager.view()).as("unchanged file: same view").isSameAs(first);

      write(file, "a=host-1\nb=host-2\nc=host-3\n", 1);
      manager.refresh();
      assertThat(manager.view().nodes()).extracting(ClusterNode::id).containsExactly("a", "b", "c");
      assertThat(manager.view().generation()).isGreaterThan(first.generation());
      ClusterView three = manager.view();

      write(file, "a=host-1,,b=host-2:notaport\n", 2);
      manager.refresh();
      assertThat(manager.view()).as("malformed file: last list stays").isSameAs(three);

      Files.delete(file);
      manager.refresh();
      assertThat(manager.view()).as("missing file: last list stays").isSameAs(three);

      write(file, "b=host-2\n", 3);
      manager.refresh();
      assertThat(manager.view().nodes()).extracting(ClusterNode::id).containsExactly("b");
    } finally {
      manager.close();
    }
  }

  @Test
  void fileManagerRefreshesOnItsOwnThreadAndTellsListeners() throws Exception {
    Path file = dir.resolve("nodes");
    Path missing = dir.resolve("later");
    Files.writeString(file, "a=host-1\n");
    BlockingQueue<ClusterView> views = new LinkedBlockingQueue<>();
    FileClusterManager manager = new FileClusterManager(missing, 8899, LocalIdentity.ofNodeId("a"), Duration.ofMillis(20));
    try {
      assertThat(manager.view()).as("no list learned yet").isEqualTo(ClusterView.EMPTY);
      manager.addListener(views::add);
      Files.move(file, missing);
      ClusterView view = views.poll(30, TimeUnit.SECONDS);
      assertThat(view).isNotNull();
      assertThat(view.local()).map(ClusterNode::host).contains("host-1");
      assertThat(manager.view()).isSameAs(view);
      write(missing, "a=host-1\nb=host-2\n", 1);
      ClusterView next = views.poll(30, TimeUnit.SECONDS);
      assertThat(next).isNotNull();
      assertThat(next.nodes()).hasSize(2);
    } finally {
      manager.close();
    }
  }

  private static void write(Path file, String text, int tick) throws Exception {
    Files.writeString(file, text);
    // a distinct modification time even on file systems with coarse timestamps
    Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + tick * 1000L));
  }
}
