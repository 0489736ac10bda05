package io.rubix.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExecutorHostsTest {
  @Test
  void nothingToPublishWhereExecutorsHaveTheirNodesAddress() {
    assertThat(ExecutorHosts.format(Map.of("10.0.0.1", Set.of("10.0.0.1"), "10.0.0.2", Set.of("10.0.0.2")))).isNull();
    assertThat(ExecutorHosts.parse(null)).isEmpty();
  }

  @Test
  void podsOnANodeMapToIt() {
    String value = ExecutorHosts.format(Map.of("10.0.0.2", Set.of("10.244.1.9"), "10.0.0.1", Set.of("10.244.0.7", "10.244.0.5")));

    assertThat(value).isEqualTo("10.0.0.1=10.244.0.5 10.244.0.7,10.0.0.2=10.244.1.9");
    assertThat(ExecutorHosts.parse(value))
        .containsExactly(Map.entry("10.0.0.1", List.of("10.244.0.5", "10.244.0.7")), Map.entry("10.0.0.2", List.of("10.244.1.9")));
  }
}
