package io.rubix.core.cluster.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.cluster.ClusterConfig;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.config.InvalidConfigException;
import java.time.Duration;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Validation of the REST cluster managers' settings: errors name the key and what is allowed, and never show a secret. */
class RestConfigTest {
  @Test
  void defaults() {
    Configuration conf = new Configuration(false);
    RestClientConfig rest = RestClientConfig.from(conf, Duration.ofSeconds(5));
    assertThat(rest.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(rest.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(rest.backoffMax()).isEqualTo(Duration.ofSeconds(60));
    assertThat(rest.initialWait()).isEqualTo(Duration.ofSeconds(2));
    assertThat(rest.trustStore()).isEmpty();
    conf.set("rubix.cluster.presto.coordinator.url", "https://coordinator.example.com:8443/");
    PrestoClusterConfig presto = PrestoClusterConfig.from(conf, PrestoFlavor.TRINO);
    assertThat(presto.coordinator()).hasToString("https://coordinator.example.com:8443");
    assertThat(presto.user()).isEqualTo("rubix");
    assertThat(presto.includeCoordinator()).isTrue();
    assertThat(presto.authorization()).isSameAs(Authorization.NONE);
  }

  @Test
  void wrongSettingsNameTheKey() {
    Configuration conf = new Configuration(false);
    conf.set("rubix.cluster.manager", "presto");
    assertThatThrownBy(() -> ClusterSetup.manager(conf, ClusterConfig.from(conf))).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cluster.presto.coordinator.url").hasMessageContaining("rubix.cluster.manager=presto");
    conf.set("rubix.cluster.presto.coordinator.url", "coordinator:8080");
    assertThatThrownBy(() -> PrestoClusterConfig.from(conf, PrestoFlavor.PRESTO)).hasMessageContaining("rubix.cluster.presto.coordinator.url")
        .hasMessageContaining("http://");
    conf.set("rubix.cluster.presto.coordinator.url", "https://admin:hunter2@coordinator:8443");
    assertThatThrownBy(() -> PrestoClusterConfig.from(conf, PrestoFlavor.PRESTO)).hasMessageContaining("without user info")
        .hasMessageNotContaining("hunter2");
    conf.set("rubix.cluster.presto.coordinator.url", "http://coordinator:8080");
    conf.set("rubix.cluster.presto.include-coordinator", "yes");
    assertThatThrownBy(() -> PrestoClusterConfig.from(conf, PrestoFlavor.PRESTO))
        .hasMessageContaining("rubix.cluster.presto.include-coordinator").hasMessageContaining("true or false");
    conf.set("rubix.cluster.presto.include-coordinator", "false");
    conf.set("rubix.cluster.presto.password", "hunter2");
    conf.set("rubix.cluster.presto.token", "tok3n");
    assertThatThrownBy(() -> PrestoClusterConfig.from(conf, PrestoFlavor.PRESTO)).hasMessageContaining("rubix.cluster.presto.token")
        .hasMessageContaining("at most one").hasMessageNotContaining("hunter2").hasMessageNotContaining("tok3n");
    conf.unset("rubix.cluster.presto.password");
    conf.unset("rubix.cluster.presto.token");
    conf.set("rubix.cluster.presto.token.file", "relative/token");
    assertThatThrownBy(() -> PrestoClusterConfig.from(conf, PrestoFlavor.PRESTO)).hasMessageContaining("rubix.cluster.presto.token.file");
    conf.unset("rubix.cluster.presto.token.file");
    conf.set("rubix.cluster.rest.request.timeout", "soon");
    assertThatThrownBy(() -> RestClientConfig.from(conf, Duration.ofSeconds(1))).hasMessageContaining("rubix.cluster.rest.request.timeout");
    conf.unset("rubix.cluster.rest.request.timeout");
    conf.set("rubix.cluster.rest.truststore.password", "changeit");
    assertThatThrownBy(() -> RestClientConfig.from(conf, Duration.ofSeconds(1))).hasMessageContaining("rubix.cluster.rest.truststore.path");
    conf.set("rubix.cluster.rest.truststore.path", "/no/such/truststore.p12");
    RestClientConfig rest = RestClientConfig.from(conf, Duration.ofSeconds(1));
    assertThat(rest.toString()).doesNotContain("changeit");
    assertThat(rest.trustStore()).get().extracting(RestClientConfig.TrustStore::password).isNotEqualTo(Optional.empty());
    assertThatThrownBy(() -> new RestHttp(rest)).isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("rubix.cluster.rest.truststore.path").hasMessageContaining("/no/such/truststore.p12")
        .hasMessageNotContaining("changeit");
    conf.set("rubix.cluster.manager", "mesos");
    assertThatThrownBy(() -> ClusterSetup.manager(conf, ClusterConfig.from(conf))).hasMessageContaining("rubix.cluster.manager")
        .hasMessageContaining("presto, trino, yarn");
  }
}
