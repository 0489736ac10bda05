package io.rubix.bookkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code rubix status} says whether the node fetches blocks for its peers, and why not. */
class PeerFillsStatusTest {
  @Test
  void eachReasonIsNamedWithItsKey() {
    assertThat(StatusCommand.peerFills(Map.of())).isEqualTo("not reported (an older daemon)");
    assertThat(StatusCommand.peerFills(Map.of("rubix_peer_fill_enabled", 0L))).contains("the transfer port is off");
    assertThat(StatusCommand.peerFills(Map.of("rubix_peer_fill_enabled", 0L, "rubix_transfer_requests", 3L)))
        .contains("rubix.network.transfer.fetch.enabled=false");
    assertThat(StatusCommand.peerFills(Map.of("rubix_peer_fill_enabled", 1L, "rubix_transfer_requests", 3L,
        "rubix_peer_fill_allowed_stores", 0L, "rubix_peer_fill_not_allowed", 7L)))
        .contains("no store allowed (set rubix.network.transfer.fetch.allowed.authorities)", "7 requests refused");
    assertThat(StatusCommand.peerFills(Map.of("rubix_peer_fill_enabled", 1L, "rubix_transfer_requests", 3L,
        "rubix_peer_fill_allowed_stores", 2L, "rubix_peer_fill_requests", 5L, "rubix_peer_fill_source_bytes", 2L << 20,
        "rubix_peer_fill_source_requests", 4L)))
        .startsWith("on for 2 stores").contains("5 requests, 2.0 MiB fetched in 4 requests");
  }
}
