package io.rubix.core.cluster.rest;

import static io.rubix.core.cluster.rest.EngineAnswers.yarnNode;
import static io.rubix.core.cluster.rest.EngineAnswers.yarnNodes;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.rest.LoopbackHttpServer.Answer;
import io.rubix.core.cluster.setup.ClusterSetup;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The membership MXBean lives as long as the cluster locality of a file system and shows what the manager knows. */
class MembershipJmxTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

  @Test
  void aRestManagerShowsItsNodesRefreshesAndFailures() throws Exception {
    try (LoopbackHttpServer rm = new LoopbackHttpServer()) {
      AtomicReference<Answer> answer = new AtomicReference<>(Answer.json(yarnNodes(List.of(yarnNode("127.0.0.1", "RUNNING"),
          yarnNode("nm-2", "RUNNING")))));
      rm.on("/ws/v1/cluster/nodes", request -> answer.get());
      Configuration conf = new Configuration(false);
      conf.set("rubix.cluster.manager", "yarn");
      conf.set("rubix.cluster.yarn.resourcemanager.url", rm.url().toString());
      conf.set("rubix.cluster.refresh.interval", "50ms");
      conf.set("rubix.cluster.rest.initial.wait", "20s");
      conf.set("rubix.cluster.rest.backoff.max", "100ms");
      Set<ObjectName> before = beans();
      ObjectName name;
      try (ClusterLocality locality = ClusterSetup.locality(conf)) {
        Set<ObjectName> added = beans();
        added.removeAll(before);
        assertThat(added).hasSize(1);
        name = added.iterator().next();
        assertThat(name.getKeyProperty("manager")).isEqualTo("\"yarn\"");
        assertThat(server.getAttribute(name, "Manager")).isEqualTo("yarn " + rm.url());
        assertThat((String[]) server.getAttribute(name, "Nodes")).containsExactly("127.0.0.1=127.0.0.1:8899", "nm-2=nm-2:8899");
        assertThat(server.getAttribute(name, "NodeCount")).isEqualTo(2);
        assertThat(server.getAttribute(name, "LocalNode")).isEqualTo("127.0.0.1");
        assertThat((Long) server.getAttribute(name, "ViewVersion")).isEqualTo(locality.view().generation());
        assertThat(Instant.parse((String) server.getAttribute(name, "LastSuccessfulRefresh"))).isBefore(Instant.now().plusSeconds(1));
        assertThat((Long) server.getAttribute(name, "LastSuccessfulRefreshMillis")).isPositive();
        assertThat(server.getAttribute(name, "ConsecutiveFailures")).isEqualTo(0);
        assertThat(server.getAttribute(name, "LastError")).isEqualTo("");
        assertThat((String[]) server.getAttribute(name, "DownNodes")).isEmpty();

        answer.set(Answer.status(500, "RM overloaded"));
        Await.until("failures over JMX", WAIT, () -> intAttribute(name, "ConsecutiveFailures") >= 2);
        assertThat((String) server.getAttribute(name, "LastError")).contains("HTTP 500").contains("RM overloaded");
        assertThat(server.getAttribute(name, "NodeCount")).isEqualTo(2);
      }
      assertThat(server.isRegistered(name)).as("unregistered when the locality closes").isFalse();
    }
  }

  @Test
  void aStaticManagerHasABeanTooUnlessJmxIsOff() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", "static");
    conf.set("rubix.cluster.nodes", "a=host-1,b=host-2");
    conf.set("rubix.cluster.node.id", "b");
    Set<ObjectName> before = beans();
    try (ClusterLocality locality = ClusterSetup.locality(conf)) {
      Set<ObjectName> added = beans();
      added.removeAll(before);
      assertThat(added).hasSize(1);
      ObjectName name = added.iterator().next();
      assertThat(server.getAttribute(name, "LocalNode")).isEqualTo("b");
      assertThat(server.getAttribute(name, "ViewVersion")).isEqualTo(locality.view().generation());
      assertThat(server.getAttribute(name, "LastSuccessfulRefresh")).isNotEqualTo("never");
      assertThat(server.getAttribute(name, "ConsecutiveFailures")).isEqualTo(0);
    }
    conf.set("rubix.cache.jmx.enabled", "false");
    try (ClusterLocality locality = ClusterSetup.locality(conf)) {
      assertThat(locality.view().nodes()).hasSize(2);
      assertThat(beans()).isEqualTo(before);
    }
  }

  private Set<ObjectName> beans() throws Exception {
    return new java.util.HashSet<>(server.queryNames(new ObjectName("io.rubix:type=ClusterMembership,*"), null));
  }

  private int intAttribute(ObjectName name, String attribute) {
    try {
      return (Integer) server.getAttribute(name, attribute);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
