package io.rubix.core.read.fetch;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.BlockRuns;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.BlockState;
import io.rubix.spi.metadata.CacheMetadataService;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The blocks one {@code acquire} granted, split into chunk-sized {@link GrantedRun}s (all registered
 * as in flight in this JVM at once). A fetch {@link #take}s the run it is about to fetch and owns it
 * from then on; {@link #close} gives back every run nobody took, so a read that fails halfway
 * leaves none of its grants behind. Used by one thread.
 */
public final class GrantedRuns implements AutoCloseable {
  private final Map<Integer, GrantedRun> untaken = new LinkedHashMap<>();

  /** The granted blocks of {@code lease} within {@code [first, end)}, in runs of at most {@code chunkBlocks}. */
  GrantedRuns(CacheMetadataService service, InFlightBuffers inFlight, BlockRange lease, int first, int end, int chunkBlocks) {
    requireNonNull(lease, "lease is null");
    Path dataFile = Path.of(lease.dataFile());
    try {
      int b = first;
      while (b < end) {
        if (lease.state(b) != BlockState.GRANTED) {
          b++;
          continue;
        }
        int runEnd = BlockRuns.end(b, end, chunkBlocks, x -> lease.state(x) == BlockState.GRANTED ? 1 : 0);
        untaken.put(b, new GrantedRun(service, inFlight, lease.version(), lease.leaseId(), dataFile, b, runEnd));
        b = runEnd;
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The runs not taken yet that start in {@code [first, end)}, in block order. */
  public List<GrantedRun> in(int first, int end) {
    List<GrantedRun> runs = new ArrayList<>();
    for (GrantedRun run : untaken.values()) {
      if (run.first() >= first && run.first() < end) {
        runs.add(run);
      }
    }
    return runs;
  }

  /** Hands {@code run} to the caller, who ends it from now on. */
  public GrantedRun take(GrantedRun run) {
    if (untaken.remove(run.first()) != run) {
      throw new IllegalStateException(run + " was already taken");
    }
    return run;
  }

  /** Gives back the blocks of every run nobody took. */
  @Override
  public void close() {
    for (GrantedRun run : untaken.values()) {
      run.close();
    }
    untaken.clear();
  }
}
