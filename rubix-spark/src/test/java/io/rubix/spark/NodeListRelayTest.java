package io.rubix.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The executor's copy of the driver's host list, against a driver that changes, fails and misanswers. */
class NodeListRelayTest {
  @TempDir
  Path temp;

  @Test
  void writesTheDriversListOnlyWhenItChangesAndKeepsItWhileTheDriverFails() throws IOException {
    Path file = temp.resolve("nodes/list.txt");
    Queue<Object> answers = new ArrayDeque<>(List.of(
        new NodeListMessages.Answer(1, List.of("a", "b")),
        new NodeListMessages.Answer(1, List.of("a", "b")),
        new IllegalStateException("driver gone"),
        "not an answer",
        new NodeListMessages.Answer(2, List.of("a", "b", "c"))));
    List<Long> asked = new java.util.ArrayList<>();
    NodeListRelay relay = new NodeListRelay(file, request -> {
      asked.add(request.knownVersion());
      Object next = answers.remove();
      if (next instanceof Exception e) {
        throw e;
      }
      return next;
    });

    relay.refresh();
    assertThat(Files.readAllLines(file)).containsExactly("a", "b");
    Files.writeString(file, "marker\n");
    relay.refresh();
    assertThat(Files.readAllLines(file)).as("same version: not rewritten").containsExactly("marker");
    Files.writeString(file, "a\nb\n");
    relay.refresh();
    relay.refresh();
    assertThat(Files.readAllLines(file)).as("failures keep the last list").containsExactly("a", "b");
    assertThat(relay.knownVersion()).isEqualTo(1);
    relay.refresh();
    assertThat(Files.readAllLines(file)).containsExactly("a", "b", "c");
    assertThat(asked).containsExactly(-1L, 1L, 1L, 1L, 1L);
    try (Stream<Path> left = Files.list(file.getParent())) {
      assertThat(left).as("no temporary files left").containsExactly(file);
    }
    relay.close();
  }
}
