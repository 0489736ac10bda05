package io.rubix.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnerPackingTest {
  private record Piece(String host, long length) {}

  @Test
  void everyTaskHoldsOneHostAndStaysWithinSparksBound() {
    List<Piece> pieces = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      pieces.add(new Piece("h" + (i % 3), 1 + (i * 7919L) % 40));
    }
    List<List<Piece>> tasks = OwnerPacking.pack(pieces, Piece::host, Piece::length, 64, 4);

    assertThat(tasks).allSatisfy(task -> assertThat(task.stream().map(Piece::host).distinct()).hasSize(1));
    assertThat(tasks).flatMap(task -> task).containsExactlyInAnyOrderElementsOf(pieces);
    // a task closes before the piece that would take it past the bound (pieces and open costs)
    assertThat(tasks).allSatisfy(task -> {
      long withoutLast = task.subList(0, task.size() - 1).stream().mapToLong(p -> p.length() + 4).sum();
      assertThat(withoutLast + task.get(task.size() - 1).length()).isLessThanOrEqualTo(64);
    });
  }

  @Test
  void packsEachHostAsSparkPacksTheWholeScan() {
    List<Piece> pieces = List.of(new Piece("a", 30), new Piece("a", 50), new Piece("a", 20), new Piece("b", 10));
    List<List<Piece>> tasks = OwnerPacking.pack(pieces, Piece::host, Piece::length, 64, 4);

    // largest first: 50 | 30+20 (30+4+20 = 54 <= 64) for a; 10 for b
    assertThat(tasks).containsExactly(
        List.of(new Piece("a", 50)), List.of(new Piece("a", 30), new Piece("a", 20)), List.of(new Piece("b", 10)));
  }

  @Test
  void aPieceLargerThanTheBoundIsATaskOfItsOwn() {
    List<List<Piece>> tasks = OwnerPacking.pack(List.of(new Piece("a", 100), new Piece("a", 5)), Piece::host, Piece::length, 64, 4);

    assertThat(tasks).containsExactly(List.of(new Piece("a", 100)), List.of(new Piece("a", 5)));
  }
}
