package io.rubix.core.read;

import static java.util.Objects.requireNonNull;

import io.rubix.core.read.session.InputBytes;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.StreamIOStatistics;
import io.rubix.core.stats.StreamStats;
import io.rubix.spi.ObjectVersion;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

/**
 * The {@link CachingInputStream} of Hadoop 3.3+: byte-buffer positioned reads, stream capabilities,
 * IOStatistics, and vectored reads whose ranges are read in parallel. Loaded only where
 * {@code HadoopApi.STREAM_3} found those interfaces.
 */
public final class Hadoop3CachingInputStream extends CachingInputStream
    implements ByteBufferPositionedReadable, StreamCapabilities, IOStatisticsSource {
  static final Factory FACTORY = Hadoop3CachingInputStream::new;

  private final Executor vectoredExecutor;

  private Hadoop3CachingInputStream(BlockReader reader, ObjectVersion version, Source source, StreamStats stats, InputBytes inputBytes,
      Executor vectoredExecutor) {
    super(reader, version, source, stats, inputBytes);
    this.vectoredExecutor = requireNonNull(vectoredExecutor, "vectoredExecutor is null");
  }

  @Override
  public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
    checkOpen();
    List<? extends FileRange> sorted = validateAndSort(ranges, session.version.length(), session.version.path());
    fetchGroups(sorted);
    // the ranges are read on other threads; engines take input bytes from the asking thread's statistics
    inputBytes().requested(sorted.stream().mapToLong(FileRange::getLength).sum());
    List<CompletableFuture<ByteBuffer>> futures = new ArrayList<>(sorted.size());
    for (FileRange range : sorted) {
      CompletableFuture<ByteBuffer> future = CompletableFuture.supplyAsync(() -> {
        ByteBuffer buffer = allocate.apply(range.getLength());
        try {
          ByteBuffer target = buffer.duplicate();
          target.limit(target.position() + range.getLength());
          readFully(range.getOffset(), target, false);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
        buffer.limit(buffer.position() + range.getLength());
        return buffer;
      }, vectoredExecutor);
      range.setData(future);
      futures.add(future);
    }
  }

  /**
   * Starts one fetch per group of two or more sorted ranges whose blocks touch or overlap, so that a
   * group costs one ranged read (per run of missing blocks, per fetch chunk) rather than one per range.
   * A range alone is left to its own read, which also fetches the object's tail or a small object whole.
   */
  private void fetchGroups(List<? extends FileRange> sorted) {
    int blockSize = reader().blockSize();
    int i = 0;
    while (i < sorted.size()) {
      long from = sorted.get(i).getOffset();
      long to = from + sorted.get(i).getLength();
      int j = i + 1;
      while (j < sorted.size() && sorted.get(j).getOffset() / blockSize <= Math.max(from, to - 1) / blockSize + 1) {
        to = Math.max(to, sorted.get(j).getOffset() + sorted.get(j).getLength());
        j++;
      }
      if (j - i > 1 && to > from) {
        reader().fetchGroup(session, from, to);
      }
      i = j;
    }
  }

  /**
   * The ranges sorted by offset, after the checks Hadoop's own streams make (as Hadoop 3.4's
   * {@code VectoredReadUtils.validateAndSortRanges}, which Hadoop 3.3 lacks): a negative length or
   * overlapping ranges are an {@link IllegalArgumentException}, a negative offset or a range past the
   * end of the file an {@link EOFException}.
   */
  static List<? extends FileRange> validateAndSort(List<? extends FileRange> ranges, long fileLength, String path) throws EOFException {
    requireNonNull(ranges, "Null input list");
    List<FileRange> sorted = new ArrayList<>(ranges.size());
    for (FileRange range : ranges) {
      requireNonNull(range, "Null range");
      if (range.getLength() < 0) {
        throw new IllegalArgumentException("length is negative in " + range + " of " + path);
      }
      if (range.getOffset() < 0) {
        throw new EOFException("position is negative in range " + range + " of " + path);
      }
      if (range.getOffset() + range.getLength() > fileLength) {
        throw new EOFException("Requested range " + range + " is beyond the end of " + path + " of length " + fileLength);
      }
      sorted.add(range);
    }
    sorted.sort(Comparator.comparingLong(FileRange::getOffset));
    for (int i = 1; i < sorted.size(); i++) {
      FileRange previous = sorted.get(i - 1);
      if (previous.getOffset() + previous.getLength() > sorted.get(i).getOffset()) {
        throw new IllegalArgumentException("Overlapping ranges " + previous + " and " + sorted.get(i) + " of " + path);
      }
    }
    return sorted;
  }

  @Override
  public boolean hasCapability(String capability) {
    return switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.READBYTEBUFFER, StreamCapabilities.PREADBYTEBUFFER, StreamCapabilities.UNBUFFER,
           StreamCapabilities.IOSTATISTICS, StreamCapabilities.VECTOREDIO -> true;
      default -> false;
    };
  }

  @Override
  public IOStatistics getIOStatistics() {
    return StreamIOStatistics.of(session.stats);
  }
}
