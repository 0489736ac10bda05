package io.rubix.core.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.core.config.EvictionPolicy;
import io.rubix.core.metadata.eviction.HillClimber;
import io.rubix.core.metadata.eviction.Segment;
import io.rubix.core.metadata.eviction.Segments;
import io.rubix.spi.ObjectVersion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How objects move between a disk's window, probation and protected segments under TinyLFU, and that
 * under LRU they stay in one list: driven through the {@link SpaceLedger} as the service drives it.
 */
class SegmentedDiskTest {
  private static final int BLOCK = 4096;
  /** A one-block object's charge. */
  private static final long UNIT = BLOCK + DiskCharge.OBJECT_OVERHEAD;

  @TempDir
  Path root;

  private final List<CachedObject> created = new ArrayList<>();

  @Test
  void newObjectsEnterTheWindowAndTheOldestMoveOnToProbationWhenItIsFull() {
    // 100 units: the initial window (1 %) holds one one-block object
    SpaceLedger ledger = new SpaceLedger(List.of(root), List.of(100 * UNIT), () -> 0L, EvictionPolicy.TINYLFU);
    Segments<CachedObject> disk = ledger.disk(0).segments;
    assertThat(disk.windowCapacity()).isEqualTo(UNIT);

    CachedObject first = cache(ledger, "first");
    assertThat(first.segment).isEqualTo(Segment.WINDOW);
    assertThat(disk.bytes(Segment.WINDOW)).isEqualTo(UNIT);

    CachedObject second = cache(ledger, "second");
    assertThat(second.segment).isEqualTo(Segment.WINDOW);
    assertThat(first.segment).isEqualTo(Segment.PROBATION);
    assertThat(disk.bytes(Segment.WINDOW)).isEqualTo(UNIT);
    assertThat(disk.bytes(Segment.PROBATION)).isEqualTo(UNIT);
  }

  @Test
  void aProbationObjectReadAgainIsProtectedAndProtectedOverflowGoesBackToProbation() {
    // the window takes 1 unit of 100; protected 80 % of the other 99
    SpaceLedger ledger = new SpaceLedger(List.of(root), List.of(100 * UNIT), () -> 0L, EvictionPolicy.TINYLFU);
    Segments<CachedObject> disk = ledger.disk(0).segments;
    long protectedUnits = disk.protectedCapacity() / UNIT;
    assertThat(protectedUnits).isEqualTo(79);
    for (int i = 0; i <= protectedUnits + 1; i++) {
      cache(ledger, "o" + i);
    }
    CachedObject oldest = created.get(0);
    assertThat(oldest.segment).isEqualTo(Segment.PROBATION);

    ledger.touch(oldest, 1);
    assertThat(oldest.segment).as("a read of a block it does not hold is no reuse").isEqualTo(Segment.PROBATION);
    ledger.touch(oldest, 0);
    assertThat(oldest.segment).isEqualTo(Segment.PROTECTED);
    assertThat(disk.bytes(Segment.PROTECTED)).isEqualTo(UNIT);

    // every other probation object read again: protected overflows by one, and its least recently used goes back
    for (CachedObject object : created.subList(1, (int) protectedUnits + 1)) {
      ledger.touch(object, 0);
    }
    assertThat(oldest.segment).isEqualTo(Segment.PROBATION);
    assertThat(disk.bytes(Segment.PROTECTED)).isEqualTo(protectedUnits * UNIT);
    Iterator<CachedObject> probation = disk.objects(Segment.PROBATION);
    CachedObject last = null;
    while (probation.hasNext()) {
      last = probation.next();
    }
    assertThat(last).as("demoted to the most recently used end of probation").isSameAs(oldest);
  }

  @Test
  void aHillClimberSampleResizesTheWindowAndProtected() {
    SpaceLedger ledger = new SpaceLedger(List.of(root), List.of(100 * UNIT), () -> 0L, EvictionPolicy.TINYLFU);
    Segments<CachedObject> disk = ledger.disk(0).segments;
    for (int i = 0; i < 10 * HillClimber.MIN_SAMPLE_OBJECTS; i++) {
      ledger.read(BLOCK, BLOCK);
    }
    assertThat(ledger.windowShare()).isGreaterThan(HillClimber.INITIAL_WINDOW);
    assertThat(disk.windowCapacity()).isEqualTo((long) (100 * UNIT * ledger.windowShare()));
    assertThat(disk.protectedCapacity()).isEqualTo((long) ((100 * UNIT - disk.windowCapacity()) * Segments.PROTECTED_SHARE));
  }

  @Test
  void underLruEveryObjectIsInOneListAndNothingIsProtected() {
    SpaceLedger ledger = new SpaceLedger(List.of(root), List.of(100 * UNIT), () -> 0L, EvictionPolicy.LRU);
    Segments<CachedObject> disk = ledger.disk(0).segments;
    CachedObject first = cache(ledger, "first");
    CachedObject second = cache(ledger, "second");
    ledger.touch(first, 0);

    assertThat(first.segment).isEqualTo(Segment.PROBATION);
    assertThat(second.segment).isEqualTo(Segment.PROBATION);
    assertThat(disk.objects(Segment.PROBATION).next()).as("least recently used first").isSameAs(second);
    assertThat(disk.windowCapacity()).isZero();
    assertThat(ledger.windowShare()).isZero();
  }

  /** Creates a one-block object, with its block charged and published, as the service does. */
  private CachedObject cache(SpaceLedger ledger, String name) {
    ObjectVersion version = new ObjectVersion("s3a://bucket/" + name, BLOCK, 1, name);
    CachedObject object = new CachedObject(version, 0, root.resolve(name), BLOCK);
    DiskSpace disk = ledger.disk(0);
    ledger.creating(object);
    assertThat(ledger.victims(disk, object, DiskCharge.OBJECT_OVERHEAD, List.of(), List.of()).fits()).isTrue();
    ledger.created(object);
    assertThat(ledger.victims(disk, object, BLOCK, List.of(), List.of()).fits()).isTrue();
    ledger.charge(object, 0);
    object.published.set(0);
    created.add(object);
    return object;
  }
}
