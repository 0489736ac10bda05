package io.rubix.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalIdentityTest {
  @Test
  void namesAreNormalised() {
    assertThat(NodeNames.normalize(" Worker-1.Example.COM. ")).isEqualTo("worker-1.example.com");
    assertThat(NodeNames.normalize("[::1]")).isEqualTo(NodeNames.normalize("0:0:0:0:0:0:0:1"));
    assertThat(NodeNames.normalize("10.0.0.7")).isEqualTo("10.0.0.7");
    assertThat(NodeNames.shortName("worker-1.example.com")).isEqualTo("worker-1");
    assertThat(NodeNames.shortName("10.0.0.7")).isEqualTo("10.0.0.7");
    ClusterNode node = new ClusterNode("Node-A", "[::1]", 8899);
    assertThat(node.id()).isEqualTo("node-a");
    assertThat(node.name()).isEqualTo("[0:0:0:0:0:0:0:1]:8899");
  }

  @Test
  void hostNamesFqdnsAndAddressesRecogniseTheNode() {
    LocalIdentity identity = LocalIdentity.ofNames(List.of("worker-1", "worker-1.ec2.internal", "10.0.0.7", "127.0.0.1"));
    assertThat(identity.matches(ClusterNode.of("WORKER-1.ec2.internal.", 1))).isTrue();
    assertThat(identity.matches(ClusterNode.of("worker-1", 1))).isTrue();
    assertThat(identity.matches(ClusterNode.of("10.0.0.7", 1))).isTrue();
    assertThat(identity.matches(new ClusterNode("worker-1", "10.9.9.9", 1))).as("by id").isTrue();
    assertThat(identity.matches(ClusterNode.of("worker-10", 1))).isFalse();
    assertThat(identity.matches(ClusterNode.of("10.0.0.70", 1))).isFalse();
    // the short name of a listed FQDN matches a node that only knows its short name
    LocalIdentity shortOnly = LocalIdentity.ofNames(List.of("worker-2"));
    assertThat(shortOnly.matches(ClusterNode.of("worker-2.example.com", 1))).isTrue();
    // two qualified names in different domains are different nodes
    LocalIdentity qualified = LocalIdentity.ofNames(List.of("worker-3.a.example"));
    assertThat(qualified.matches(ClusterNode.of("worker-3.b.example", 1))).isFalse();
    assertThat(qualified.matches(ClusterNode.of("worker-3", 1))).isTrue();
  }

  @Test
  void aConfiguredNodeIdIsTheOnlyIdentity() {
    LocalIdentity identity = LocalIdentity.detect("Node-B");
    assertThat(identity.configuredId()).contains("node-b");
    assertThat(identity.matches(new ClusterNode("node-b", "somewhere-else", 1))).isTrue();
    assertThat(identity.matches(new ClusterNode("node-a", "127.0.0.1", 1))).isFalse();
  }

  @Test
  void detectedIdentityKnowsThisMachinesNamesAndAddresses() throws Exception {
    LocalIdentity identity = LocalIdentity.detect(null);
    assertThat(identity.matches(ClusterNode.of("127.0.0.1", 1))).isTrue();
    InetAddress local = InetAddress.getLocalHost();
    assertThat(identity.matches(ClusterNode.of(local.getHostName(), 1))).isTrue();
    assertThat(identity.matches(ClusterNode.of(local.getCanonicalHostName().toUpperCase(java.util.Locale.ROOT) + ".", 1))).isTrue();
    assertThat(identity.matches(ClusterNode.of(local.getHostAddress(), 1))).isTrue();
  }

  @Test
  void viewsAreSortedAndFindTheLocalNode() {
    LocalIdentity identity = LocalIdentity.ofNodeId("b");
    ClusterView view = ClusterView.of(List.of(new ClusterNode("c", "h3", 1), new ClusterNode("b", "h2", 1), new ClusterNode("a", "h1", 1)), identity, 1);
    assertThat(view.nodes()).extracting(ClusterNode::id).containsExactly("a", "b", "c");
    assertThat(view.local()).map(ClusterNode::host).contains("h2");
    assertThatThrownBy(() -> ClusterView.of(List.of(new ClusterNode("a", "h1", 1), new ClusterNode("A", "h2", 1)), identity, 1))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> new ClusterNode("a", "h", 0)).hasMessageContaining("outside 1-65535");
  }
}
