package io.rubix.core.cluster.rest;

import static io.rubix.core.cluster.rest.EngineAnswers.activeStats;
import static io.rubix.core.cluster.rest.EngineAnswers.array;
import static io.rubix.core.cluster.rest.EngineAnswers.trinoUri;
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
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An https coordinator whose certificate only a configured trust store vouches for (made with the JDK's keytool). */
class HttpsCoordinatorTest {
  @TempDir
  Path dir;

  @Test
  void aConfiguredTrustStoreIsUsedAndItsPasswordNeverShows() throws Exception {
    Path keyStore = dir.resolve("server.p12");
    Path cert = dir.resolve("server.crt");
    Path trustStore = dir.resolve("trust.p12");
    keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
        "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-keystore", keyStore.toString(), "-storetype", "PKCS12",
        "-storepass", "server-pass", "-keypass", "server-pass");
    keytool("-exportcert", "-alias", "server", "-keystore", keyStore.toString(), "-storepass", "server-pass", "-file", cert.toString());
    keytool("-importcert", "-noprompt", "-alias", "server", "-file", cert.toString(), "-keystore", trustStore.toString(),
        "-storetype", "PKCS12", "-storepass", "trust-pass");

    try (LoopbackHttpServer coordinator = new LoopbackHttpServer(serverContext(keyStore, "server-pass"))) {
      coordinator.on("/v1/node", request -> Answer.json(array(List.of(activeStats(trinoUri("127.0.0.2"))))));
      coordinator.on("/v1/node/failed", request -> Answer.json("[]"));
      Configuration conf = new Configuration(false);
      conf.set("rubix.cluster.manager", "trino");
      conf.set("rubix.cluster.presto.coordinator.url", coordinator.url().toString());
      conf.set("rubix.cluster.presto.include-coordinator", "false");
      conf.set("rubix.cluster.presto.token", "jwt-abc.def.ghi");
      conf.set("rubix.cluster.refresh.interval", "50ms");
      conf.set("rubix.cluster.rest.initial.wait", "20s");
      conf.set("rubix.cluster.rest.request.timeout", "2s");

      // the JVM's trust store does not know this certificate
      try (ClusterManager manager = ClusterSetup.manager(conf, ClusterConfig.from(conf))) {
        PollingClusterManager polling = (PollingClusterManager) manager;
        Await.until("a refused handshake", Duration.ofSeconds(20), () -> polling.consecutiveFailures() > 0);
        assertThat(manager.view()).isEqualTo(ClusterView.EMPTY);
        assertThat(polling.lastError()).get().asString().containsIgnoringCase("ssl").doesNotContain("jwt-abc");
      }

      conf.set("rubix.cluster.rest.truststore.path", trustStore.toString());
      conf.set("rubix.cluster.rest.truststore.password", "trust-pass");
      conf.set("rubix.cluster.rest.truststore.type", "PKCS12");
      try (ClusterManager manager = ClusterSetup.manager(conf, ClusterConfig.from(conf))) {
        // the first request (a TLS handshake) has the 2 s request timeout, which a loaded machine can miss: a later refresh then brings the list
        Await.until("the first node list", Duration.ofSeconds(20), () -> !manager.view().isEmpty());
        assertThat(manager.view().nodes()).extracting(ClusterNode::host).containsExactly("127.0.0.2");
      }
      assertThat(coordinator.requests()).anySatisfy(request -> assertThat(request.header("Authorization")).isEqualTo("Bearer jwt-abc.def.ghi"));

      conf.set("rubix.cluster.rest.truststore.password", "wrong-pass");
      assertThatThrownBy(() -> ClusterSetup.manager(conf, ClusterConfig.from(conf))).isInstanceOf(InvalidConfigException.class)
          .hasMessageContaining("rubix.cluster.rest.truststore.path").hasMessageNotContaining("wrong-pass");
    }
  }

  private static SSLContext serverContext(Path keyStore, String password) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keyStore)) {
      store.load(in, password.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  private void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("keytool.log").toFile()).start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
    assertThat(process.exitValue()).as("keytool %s: %s", List.of(args), Files.readString(dir.resolve("keytool.log"))).isZero();
  }
}
