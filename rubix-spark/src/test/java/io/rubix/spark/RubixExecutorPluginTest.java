package io.rubix.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.client.ClientConfig;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class RubixExecutorPluginTest {
  @Test
  void anExecutorOnItsNodeIsItsOwnCacheNode() {
    assertThat(RubixExecutorPlugin.cacheHost(client("127.0.0.1"), "10.0.0.4")).isEqualTo("10.0.0.4");
    assertThat(RubixExecutorPlugin.cacheHost(client("localhost"), "10.0.0.4")).isEqualTo("10.0.0.4");
  }

  /** A pod reaching its node's daemon at the node's address ({@code ${env.RUBIX_HOST_IP}}) belongs to that node. */
  @Test
  void aPodReachingItsNodesDaemonBelongsToTheNode() {
    assertThat(RubixExecutorPlugin.cacheHost(client("192.0.2.17"), "10.244.3.8")).isEqualTo("192.0.2.17");
  }

  private static ClientConfig client(String host) {
    Configuration conf = new Configuration(false);
    conf.set("rubix.network.bookkeeper.host", host);
    return ClientConfig.from(conf);
  }
}
