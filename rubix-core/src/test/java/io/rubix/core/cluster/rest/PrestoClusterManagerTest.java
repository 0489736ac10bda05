package io.rubix.core.cluster.rest;

import static io.rubix.core.cluster.rest.EngineAnswers.activeStats;
import static io.rubix.core.cluster.rest.EngineAnswers.array;
import static io.rubix.core.cluster.rest.EngineAnswers.failedStats;
import static io.rubix.core.cluster.rest.EngineAnswers.newStats;
import static io.rubix.core.cluster.rest.EngineAnswers.prestoUri;
import static io.rubix.core.cluster.rest.EngineAnswers.trinoUri;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.cluster.ClusterConfig;
import io.rubix.core.cluster.PollingClusterManager;
import io.rubix.core.cluster.rest.LoopbackHttpServer.Answer;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.spi.cluster.ClusterManager;
import io.rubix.spi.cluster.ClusterNode;
import io.rubix.spi.cluster.ClusterView;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The presto and trino cluster managers against a loopback coordinator answering as PrestoDB and Trino do. */
class PrestoClusterManagerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  Path dir;

  private LoopbackHttpServer coordinator;
  private final AtomicReference<String> nodes = new AtomicReference<>("[]");
  private final AtomicReference<String> failed = new AtomicReference<>("[]");

  @BeforeEach
  void start() throws Exception {
    coordinator = new LoopbackHttpServer();
    coordinator.on("/v1/node", request -> Answer.json(nodes.get()));
    coordinator.on("/v1/node/failed", request -> Answer.json(failed.get()));
  }

  @AfterEach
  void stop() throws Exception {
    coordinator.close();
  }

  private Configuration conf(String manager) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", manager);
    conf.set("rubix.cluster.presto.coordinator.url", coordinator.url().toString());
    conf.set("rubix.cluster.refresh.interval", "50ms");
    conf.set("rubix.cluster.rest.initial.wait", "20s");
    conf.set("rubix.cluster.rest.request.timeout", "2s");
    conf.set("rubix.cluster.rest.backoff.max", "200ms");
    return conf;
  }

  private static ClusterManager create(Configuration conf) {
    return ClusterSetup.manager(conf, ClusterConfig.from(conf));
  }

  /**
   * A manager once it has a node list. Its constructor waits for the first answer, but that answer
   * has no more time than any request (rubix.cluster.rest.request.timeout): on a loaded machine the
   * first request of a JVM can time out, the constructor then returns with no list, and a later
   * refresh brings it. (That the constructor waits for a first answer is PollingClusterManagerTest's.)
   */
  private static ClusterManager createWithList(Configuration conf) throws InterruptedException {
    ClusterManager manager = create(conf);
    try {
      Await.until("the first node list", WAIT, () -> !manager.view().isEmpty());
    } catch (InterruptedException | RuntimeException | Error e) {
      manager.close();
      throw e;
    }
    return manager;
  }

  private static List<String> hosts(ClusterManager manager) {
    return manager.view().nodes().stream().map(ClusterNode::host).toList();
  }

  @Test
  void prestoNodesAreTheActiveOnesMinusTheFailedPlusTheCoordinator() throws Exception {
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")), failedStats(prestoUri("127.0.0.3")), newStats(prestoUri("127.0.0.4")))));
    failed.set(array(List.of(failedStats(prestoUri("127.0.0.3")))));
    Configuration conf = conf("presto");
    conf.set("rubix.network.bookkeeper.server.port", "9000");
    try (ClusterManager manager = createWithList(conf)) {
      assertThat(hosts(manager)).containsExactly("127.0.0.1", "127.0.0.2", "127.0.0.4");
      assertThat(manager.view().nodes()).allMatch(node -> node.port() == 9000);
      // this machine is the coordinator: its interface addresses include 127.0.0.1, and the list spells it so
      assertThat(manager.view().local()).map(ClusterNode::host).contains("127.0.0.1");
    }
    assertThat(coordinator.requests()).allSatisfy(request -> {
      assertThat(request.header("X-Presto-User")).isEqualTo("rubix");
      assertThat(request.header("Authorization")).isNull();
    });
  }

  @Test
  void trinoStatusUrisAndCoordinatorLeftOutWhenItSchedulesNoWork() throws Exception {
    nodes.set(array(List.of(activeStats(trinoUri("worker-1.example.com")), activeStats(trinoUri("127.0.0.3")))));
    coordinator.on("/v1/node", request -> request.header("X-Trino-User") == null
        ? Answer.status(401, "Basic authentication or X-Trino-User must be sent")
        : Answer.json(nodes.get()));
    Configuration conf = conf("trino");
    conf.set("rubix.cluster.presto.include-coordinator", "false");
    conf.set("rubix.cluster.presto.user", "cache");
    conf.set("rubix.cluster.node.id", "127.0.0.3");
    try (ClusterManager manager = createWithList(conf)) {
      assertThat(hosts(manager)).containsExactly("127.0.0.3", "worker-1.example.com");
      assertThat(manager.view().local()).map(ClusterNode::id).contains("127.0.0.3");
    }
    assertThat(coordinator.requests()).allSatisfy(request -> assertThat(request.header("X-Trino-User")).isEqualTo("cache"));
  }

  @Test
  void aServerThatWantsOtherHeadersGetsNoListAndSaysSo() throws Exception {
    coordinator.on("/v1/node", request -> request.header("X-Trino-User") == null
        ? Answer.status(401, "Basic authentication or X-Trino-User must be sent")
        : Answer.json(nodes.get()));
    nodes.set(array(List.of(activeStats(trinoUri("127.0.0.2")))));
    // presto speaks X-Presto-User: this Trino refuses it
    try (ClusterManager manager = create(conf("presto"))) {
      PollingClusterManager polling = (PollingClusterManager) manager;
      Await.until("a failed refresh", WAIT, () -> polling.consecutiveFailures() > 0);
      assertThat(manager.view()).isEqualTo(ClusterView.EMPTY);
      assertThat(polling.lastError()).get().asString().contains("401").contains("X-Trino-User must be sent");
      assertThat(polling.lastSuccessfulRefresh()).isEmpty();
    }
  }

  @Test
  void basicAuthIsSentAndThePasswordNeverShows() throws Exception {
    String expected = "Basic " + Base64.getEncoder().encodeToString("cache:s3cr3t-pw".getBytes(StandardCharsets.UTF_8));
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")))));
    AtomicReference<Boolean> accept = new AtomicReference<>(true);
    coordinator.on("/v1/node", request -> accept.get() && expected.equals(request.header("Authorization"))
        ? Answer.json(nodes.get()) : Answer.status(401, "Unauthorized"));
    Configuration conf = conf("trino");
    conf.set("rubix.cluster.presto.user", "cache");
    conf.set("rubix.cluster.presto.password", "s3cr3t-pw");
    try (ClusterManager manager = createWithList(conf)) {
      assertThat(hosts(manager)).containsExactly("127.0.0.1", "127.0.0.2");
      accept.set(false);
      PollingClusterManager polling = (PollingClusterManager) manager;
      Await.until("a refused refresh", WAIT, () -> polling.consecutiveFailures() > 0);
      assertThat(hosts(manager)).as("last list kept").containsExactly("127.0.0.1", "127.0.0.2");
      assertThat(polling.lastError()).get().asString().contains("401").doesNotContain("s3cr3t-pw");
      assertThat(PrestoClusterConfig.from(conf, PrestoFlavor.TRINO).toString()).doesNotContain("s3cr3t-pw");
    }
    assertThat(coordinator.requests()).anySatisfy(request -> assertThat(request.header("X-Trino-User")).isEqualTo("cache"));
  }

  @Test
  void bearerTokenFileIsRereadWhenItChanges() throws Exception {
    Path token = dir.resolve("token");
    write(token, "token-one\n", 1);
    AtomicReference<String> valid = new AtomicReference<>("Bearer token-one");
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")))));
    coordinator.on("/v1/node", request -> valid.get().equals(request.header("Authorization"))
        ? Answer.json(nodes.get()) : Answer.status(401, "Unauthorized"));
    Configuration conf = conf("presto");
    conf.set("rubix.cluster.presto.token.file", token.toString());
    conf.set("rubix.cluster.presto.include-coordinator", "false");
    try (ClusterManager manager = createWithList(conf)) {
      PollingClusterManager polling = (PollingClusterManager) manager;
      assertThat(hosts(manager)).containsExactly("127.0.0.2");
      // the server rotates its token: refreshes fail until the file has the new one
      valid.set("Bearer token-two");
      nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")), activeStats(prestoUri("127.0.0.5")))));
      Await.until("a refused refresh", WAIT, () -> polling.consecutiveFailures() > 0);
      assertThat(polling.lastError()).get().asString().doesNotContain("token-one");
      write(token, "token-two\n", 2);
      Await.until("the new list", WAIT, () -> manager.view().nodes().size() == 2);
      assertThat(polling.consecutiveFailures()).isZero();
    }
  }

  @Test
  void aRestartedWorkerWithAnOldFailedEntryIsLive() throws Exception {
    // after a restart the failure detector keeps the old, failed record next to the new one (same uri) until it expires
    nodes.set(array(List.of(failedStats(prestoUri("127.0.0.2")), activeStats(prestoUri("127.0.0.2")), failedStats(prestoUri("127.0.0.3")))));
    failed.set(array(List.of(failedStats(prestoUri("127.0.0.2")), failedStats(prestoUri("127.0.0.3")))));
    Configuration conf = conf("presto");
    conf.set("rubix.cluster.presto.include-coordinator", "false");
    try (ClusterManager manager = createWithList(conf)) {
      assertThat(hosts(manager)).containsExactly("127.0.0.2");
    }
  }

  @Test
  void changesAppearWithinTheRefreshIntervalAndListenersHearOfThem() throws Exception {
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")))));
    Configuration conf = conf("presto");
    conf.set("rubix.cluster.presto.include-coordinator", "false");
    try (ClusterManager manager = createWithList(conf)) {
      assertThat(hosts(manager)).containsExactly("127.0.0.2");
      AtomicReference<ClusterView> heard = new AtomicReference<>();
      manager.addListener(heard::set);
      long generation = manager.view().generation();
      nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")), activeStats(prestoUri("127.0.0.3")))));
      Await.until("the added worker", WAIT, () -> manager.view().nodes().size() == 2);
      assertThat(manager.view().generation()).isGreaterThan(generation);
      Await.until("the listener", WAIT, () -> heard.get() != null && heard.get().nodes().size() == 2);
      failed.set(array(List.of(failedStats(prestoUri("127.0.0.2")))));
      Await.until("the failed worker removed", WAIT, () -> hosts(manager).equals(List.of("127.0.0.3")));
    }
  }

  @Test
  void slowAnswersNeverBlockTheViewAndTheLastListStays() throws Exception {
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")))));
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Boolean> slow = new AtomicReference<>(false);
    coordinator.on("/v1/node", request -> {
      if (slow.get()) {
        // far longer than the request timeout
        release.await(60, TimeUnit.SECONDS);
      }
      return Answer.json(nodes.get());
    });
    Configuration conf = conf("presto");
    conf.set("rubix.cluster.rest.request.timeout", "300ms");
    try (ClusterManager manager = createWithList(conf)) {
      PollingClusterManager polling = (PollingClusterManager) manager;
      ClusterView before = manager.view();
      assertThat(before.nodes()).hasSize(2);
      slow.set(true);
      int hits = coordinator.hits("/v1/node");
      Await.until("a request that hangs", WAIT, () -> coordinator.hits("/v1/node") > hits);
      // no bound on how long these take: with a 300 ms request timeout a bound could not tell a view()
      // that waits for the refresh from one that does not (each wait would end with the request);
      // PollingClusterManagerTest shows view() answering while a source hangs for good
      for (int i = 0; i < 1000; i++) {
        assertThat(manager.view()).isSameAs(before);
      }
      Await.until("the timeout counted as a failure", WAIT, () -> polling.consecutiveFailures() > 0);
      assertThat(polling.lastError()).get().asString().contains("within 300 ms");
      assertThat(manager.view()).isSameAs(before);
    } finally {
      release.countDown();
    }
  }

  @Test
  void errorsMalformedAnswersAndEmptyListsKeepTheLastList() throws Exception {
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")), activeStats(prestoUri("127.0.0.3")))));
    AtomicReference<Answer> override = new AtomicReference<>();
    coordinator.on("/v1/node", request -> override.get() != null ? override.get() : Answer.json(nodes.get()));
    Configuration conf = conf("presto");
    conf.set("rubix.cluster.presto.include-coordinator", "false");
    try (ClusterManager manager = createWithList(conf)) {
      PollingClusterManager polling = (PollingClusterManager) manager;
      ClusterView good = manager.view();
      assertThat(good.nodes()).hasSize(2);
      for (Answer bad : List.of(
          Answer.status(500, "java.lang.IllegalStateException: not ready"),
          Answer.json("[{\"uri\":\"http://127.0.0.9:8080\""),
          Answer.json("{\"nodes\":[]}"),
          Answer.json("[{\"url\":\"http://127.0.0.9:8080\"}]"),
          Answer.json("[{\"uri\":\"not a uri at all\"}]"),
          Answer.json("[]"))) {
        int hits = coordinator.hits("/v1/node");
        override.set(bad);
        Await.until("a failed refresh for " + bad, WAIT, () -> coordinator.hits("/v1/node") > hits + 1 && polling.consecutiveFailures() > 0);
        assertThat(manager.view()).as("after %s", bad).isSameAs(good);
        override.set(null);
        Await.until("recovery", WAIT, () -> polling.consecutiveFailures() == 0);
        assertThat(manager.view()).isSameAs(good);
      }
      override.set(Answer.json("[]"));
      Await.until("an empty answer", WAIT, () -> polling.lastError().isPresent());
      assertThat(polling.lastError()).get().asString().contains("no nodes");
    }
  }

  @Test
  void closeStopsTheRefreshingThread() throws Exception {
    nodes.set(array(List.of(activeStats(prestoUri("127.0.0.2")))));
    ClusterManager manager = create(conf("presto"));
    String threadName = "rubix-cluster-presto " + coordinator.url();
    Await.until("a few refreshes", WAIT, () -> coordinator.hits("/v1/node") >= 3);
    assertThat(threads(threadName)).isNotEmpty();
    manager.close();
    Await.until("the thread ends", WAIT, () -> threads(threadName).isEmpty());
    assertThat(manager.view().nodes()).as("the last view still answers").hasSize(2);
  }

  private static List<Thread> threads(String name) {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).toList();
  }

  private static void write(Path file, String text, int tick) throws Exception {
    Files.writeString(file, text);
    Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + tick * 1000L));
  }
}
