package io.rubix.core.cluster.rest;

import static io.rubix.core.cluster.rest.EngineAnswers.yarnNode;
import static io.rubix.core.cluster.rest.EngineAnswers.yarnNodes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.cluster.ClusterConfig;
import io.rubix.core.cluster.PollingClusterManager;
import io.rubix.core.cluster.rest.LoopbackHttpServer.Answer;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The yarn cluster manager against loopback ResourceManagers answering as Hadoop's does. */
class YarnClusterManagerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String NODES = "/ws/v1/cluster/nodes";

  private LoopbackHttpServer active;
  private LoopbackHttpServer standby;
  private final AtomicReference<String> running = new AtomicReference<>(yarnNodes(List.of()));

  @BeforeEach
  void start() throws Exception {
    active = new LoopbackHttpServer();
    standby = new LoopbackHttpServer();
    active.on(NODES, request -> Answer.json(running.get()));
    // Hadoop's RMWebAppFilter on a standby: 307 to the active RM's same URL, with a text body
    standby.on(NODES, request -> new Answer(307, "This is standby RM. The redirect url is: " + NODES + "?" + request.query(),
        Map.of("Location", active.url() + NODES + "?" + request.query(), "Content-Type", "text/plain")));
  }

  @AfterEach
  void stop() throws Exception {
    active.close();
    standby.close();
  }

  private Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", "yarn");
    conf.set("rubix.cluster.refresh.interval", "50ms");
    conf.set("rubix.cluster.rest.initial.wait", "20s");
    conf.set("rubix.cluster.rest.backoff.max", "200ms");
    return conf;
  }

  private static ClusterManager create(Configuration conf) {
    return ClusterSetup.manager(conf, ClusterConfig.from(conf));
  }

  private static List<String> hosts(ClusterManager manager) {
    return manager.view().nodes().stream().map(ClusterNode::host).toList();
  }

  @Test
  void runningNodeManagersAreTheNodesAndNoneIsAnEmptyCluster() throws Exception {
    Configuration conf = conf();
    conf.set("rubix.cluster.yarn.resourcemanager.url", active.url() + "/");
    conf.set("rubix.cluster.yarn.user", "hive");
    try (ClusterManager manager = create(conf)) {
      PollingClusterManager polling = (PollingClusterManager) manager;
      // {"nodes":null}: nothing to publish yet, and no failure either
      assertThat(manager.view()).isEqualTo(ClusterView.EMPTY);
      assertThat(polling.consecutiveFailures()).isZero();
      assertThat(polling.lastSuccessfulRefresh()).isPresent();
      running.set(yarnNodes(List.of(yarnNode("nm-2.example.com", "RUNNING"), yarnNode("127.0.0.1", "RUNNING"),
          yarnNode("nm-3.example.com", "UNHEALTHY"))));
      Await.until("the NodeManagers", WAIT, () -> !manager.view().isEmpty());
      assertThat(hosts(manager)).containsExactly("127.0.0.1", "nm-2.example.com");
      assertThat(manager.view().local()).map(ClusterNode::host).contains("127.0.0.1");
      // a later {"nodes":null} (RM restart) does not drop them
      running.set(yarnNodes(List.of()));
      Await.until("the empty answer", WAIT, () -> polling.consecutiveFailures() > 0);
      assertThat(hosts(manager)).containsExactly("127.0.0.1", "nm-2.example.com");
    }
    assertThat(active.requests()).allSatisfy(request -> assertThat(request.query()).isEqualTo("states=RUNNING&user.name=hive"));
  }

  @Test
  void haFailsOverFromTheStandbyToTheActiveAndStaysThere() throws Exception {
    running.set(yarnNodes(List.of(yarnNode("nm-1", "RUNNING"), yarnNode("nm-2", "RUNNING"))));
    Configuration conf = conf();
    // the Hadoop way: HA ids with their web addresses, the standby first
    conf.set("yarn.resourcemanager.ha.enabled", "true");
    conf.set("yarn.resourcemanager.ha.rm-ids", "rm1,rm2");
    conf.set("yarn.resourcemanager.webapp.address.rm1", standby.url().getAuthority());
    conf.set("yarn.resourcemanager.webapp.address.rm2", active.url().getAuthority());
    try (ClusterManager manager = create(conf)) {
      assertThat(hosts(manager)).containsExactly("nm-1", "nm-2");
      int standbyHits = standby.hits(NODES);
      assertThat(standbyHits).isEqualTo(1);
      int activeHits = active.hits(NODES);
      Await.until("more refreshes", WAIT, () -> active.hits(NODES) > activeHits + 3);
      assertThat(standby.hits(NODES)).as("the active RM is asked first once it answered").isEqualTo(standbyHits);

      // failover: the old active stops answering, the old standby becomes active
      running.set(yarnNodes(List.of(yarnNode("nm-1", "RUNNING"), yarnNode("nm-2", "RUNNING"), yarnNode("nm-3", "RUNNING"))));
      active.on(NODES, request -> Answer.status(503, "shutting down"));
      standby.on(NODES, request -> Answer.json(running.get()));
      Await.until("the list from the new active RM", WAIT, () -> manager.view().nodes().size() == 3);
      assertThat(((PollingClusterManager) manager).consecutiveFailures()).isZero();
    }
  }

  @Test
  void noActiveResourceManagerKeepsTheLastListAndNamesEachFailure() throws Exception {
    running.set(yarnNodes(List.of(yarnNode("nm-1", "RUNNING"))));
    Configuration conf = conf();
    conf.set("rubix.cluster.yarn.resourcemanager.url", standby.url() + "," + active.url());
    try (ClusterManager manager = create(conf)) {
      PollingClusterManager polling = (PollingClusterManager) manager;
      assertThat(hosts(manager)).containsExactly("nm-1");
      // "There is no active RM right now." with 200 and text: not JSON
      active.on(NODES, request -> Answer.status(200, "There is no active RM right now.\nHA Zookeeper Connection State: CONNECTED"));
      Await.until("a failed refresh", WAIT, () -> polling.consecutiveFailures() > 0);
      assertThat(hosts(manager)).containsExactly("nm-1");
      assertThat(polling.lastError()).get().asString()
          .contains("No ResourceManager answered")
          .contains("307")
          .contains("Malformed JSON");
    }
  }

  @Test
  void resourceManagerAddressesComeFromHadoopSettings() {
    Configuration conf = new Configuration(false);
    assertThatThrownBy(() -> YarnClusterConfig.from(conf)).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cluster.yarn.resourcemanager.url");
    conf.set("yarn.resourcemanager.hostname", "rm.example.com");
    assertThat(YarnClusterConfig.from(conf).resourceManagers()).containsExactly(URI.create("http://rm.example.com:8088"));
    conf.set("yarn.resourcemanager.webapp.address", "rm-web.example.com:18088");
    assertThat(YarnClusterConfig.from(conf).resourceManagers()).containsExactly(URI.create("http://rm-web.example.com:18088"));
    conf.set("yarn.http.policy", "HTTPS_ONLY");
    assertThat(YarnClusterConfig.from(conf).resourceManagers()).containsExactly(URI.create("https://rm.example.com:8090"));
    conf.set("yarn.http.policy", "HTTP_ONLY");
    conf.set("yarn.resourcemanager.ha.enabled", "true");
    conf.set("yarn.resourcemanager.ha.rm-ids", "rm1, rm2");
    conf.set("yarn.resourcemanager.hostname.rm1", "master-1");
    conf.set("yarn.resourcemanager.webapp.address.rm2", "master-2:8088");
    assertThat(YarnClusterConfig.from(conf).resourceManagers())
        .containsExactly(URI.create("http://master-1:8088"), URI.create("http://master-2:8088"));
    conf.unset("yarn.resourcemanager.hostname.rm1");
    assertThatThrownBy(() -> YarnClusterConfig.from(conf)).hasMessageContaining("yarn.resourcemanager.webapp.address.rm1");
    conf.set("rubix.cluster.yarn.resourcemanager.url", "http://a:8088, https://b:8090/");
    assertThat(YarnClusterConfig.from(conf).resourceManagers()).containsExactly(URI.create("http://a:8088"), URI.create("https://b:8090"));
    conf.set("rubix.cluster.yarn.resourcemanager.url", "rm:8088");
    assertThatThrownBy(() -> YarnClusterConfig.from(conf)).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cluster.yarn.resourcemanager.url").hasMessageContaining("http://");
    conf.set("rubix.cluster.yarn.resourcemanager.url", "http://a:8088");
    conf.set("rubix.cluster.yarn.user", "two words");
    assertThatThrownBy(() -> YarnClusterConfig.from(conf)).hasMessageContaining("rubix.cluster.yarn.user");
  }
}
