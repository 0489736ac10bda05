package io.rubix.core.read.session;

import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ChecksumVerification;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.metadata.ServiceOptions;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.core.stats.StreamStats;
import io.rubix.core.store.BlockStore;
import io.rubix.core.store.CacheFiles;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.config.CacheKeys;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;

/**
 * The real metadata service and block store over a temporary directory, and one object whose bytes a
 * counting in-memory {@link Source} serves: what the read classes' tests run against.
 */
public final class ReadFixture implements AutoCloseable {
  public static final int BLOCK = 4096;

  public final Path root;
  public final InProcessMetadataService service;
  final CacheFiles files;
  public final BlockStore store;
  public final CacheStats stats = new CacheStats();
  public final byte[] data;
  public final ObjectVersion version;
  /** Source requests the fixture's source served (or failed). */
  public final AtomicInteger sourceRequests = new AtomicInteger();

  /** An object of {@code length} bytes, cached on a disk of 64 blocks whose files open with {@code opener}. */
  public ReadFixture(Path root, long length, ChannelOpener opener) {
    this(root, length, opener, 64L * BLOCK);
  }

  public ReadFixture(Path root, long length, ChannelOpener opener, long capacity) {
    this.root = root;
    this.data = new byte[(int) length];
    new Random(length).nextBytes(data);
    this.version = new ObjectVersion("s3a://bucket/key", length, 1000, "etag");
    this.service = new InProcessMetadataService(ServiceOptions.builder(BLOCK, List.of(root), List.of(capacity))
        .leaseTimeout(Duration.ofSeconds(30)).build());
    this.files = new CacheFiles(8, opener);
    this.store = new BlockStore(BLOCK, files, ChecksumVerification.ALWAYS, 2);
  }

  public ReadFixture(Path root, long length) {
    this(root, length, ChannelOpener.DEFAULT);
  }

  /** A config for this fixture's disk: {@code chunkBlocks} blocks per source read, no read-ahead. */
  public static CacheConfig config(Path root, boolean strict, int chunkBlocks) {
    Configuration conf = new Configuration(false);
    conf.set(CacheKeys.DIRS.name(), root.toString());
    conf.set(CacheKeys.BLOCK_SIZE.name(), Integer.toString(BLOCK));
    conf.set(CacheKeys.FETCH_CHUNK.name(), Integer.toString(chunkBlocks * BLOCK));
    conf.set(CacheKeys.READAHEAD_MAX.name(), "0");
    // the parts under test alone: no tail or whole-object extent, no tails in memory (FetchPlanTest has them)
    conf.set(CacheKeys.FETCH_TAIL.name(), "0");
    conf.set(CacheKeys.FETCH_WHOLE_MAX.name(), "0");
    conf.set(CacheKeys.TAIL_MEMORY.name(), "0");
    conf.set(CacheKeys.STRICT_MODE.name(), Boolean.toString(strict));
    return CacheConfig.from(conf);
  }

  /** The object's bytes, served by ranged reads that are counted. */
  public Source source() {
    return (position, buffer, offset, length) -> {
      sourceRequests.incrementAndGet();
      if (position + length > data.length) {
        throw new EOFException("Read past end of " + version.path());
      }
      System.arraycopy(data, (int) position, buffer, offset, length);
    };
  }

  /** A source whose every read fails with a new {@code failure} (as a real source would: one exception per request). */
  public Source failingSource(Supplier<IOException> failure) {
    return (position, buffer, offset, length) -> {
      sourceRequests.incrementAndGet();
      throw failure.get();
    };
  }

  public ReadSession session(Source source) {
    return new ReadSession(version, source, new StreamStats(stats), BLOCK);
  }

  public ReadSession session() {
    return session(source());
  }

  public long count(CacheCounter counter) {
    return stats.get(counter);
  }

  /** The object's bytes {@code [from, to)}. */
  public byte[] bytes(long from, long to) {
    return Arrays.copyOfRange(data, (int) from, (int) to);
  }

  /** Opens the data file of the object for a test to damage it. */
  public FileChannel openDataFile(Path dataFile) throws IOException {
    return FileChannel.open(dataFile, StandardOpenOption.WRITE);
  }

  @Override
  public void close() {
    store.close();
    service.close();
  }
}
