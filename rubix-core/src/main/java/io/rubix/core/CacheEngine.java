package io.rubix.core;

import static java.util.Objects.requireNonNull;

import io.rubix.core.client.BookKeeperClient;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.client.CounterReporter;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.insight.CacheInsightBean;
import io.rubix.core.metadata.EmbeddedServices;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.read.BlockReader;
import io.rubix.core.read.CachingInputStream;
import io.rubix.core.read.fill.BlockFiller;
import io.rubix.core.read.peer.HandoffSource;
import io.rubix.core.read.session.BlockAdmission;
import io.rubix.core.read.session.InputBytes;
import io.rubix.core.read.session.Source;
import io.rubix.core.stats.CacheStats;
import io.rubix.core.stats.CacheStatsBean;
import io.rubix.core.stats.JmxBeans;
import io.rubix.core.stats.StreamStats;
import io.rubix.core.store.BlockStore;
import io.rubix.core.store.CacheFiles;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.CacheInsights;
import io.rubix.spi.metadata.CacheMetadataService;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one cache-enabled file system needs to read through the cache: the metadata service,
 * the block store, the read path with its thread pools, and statistics. Owned by the file system and
 * closed with it.
 */
public final class CacheEngine implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CacheEngine.class);

  private final CacheConfig config;
  private final CacheMetadataService service;
  private final AutoCloseable serviceRelease;
  private final BlockStore store;
  private final BlockReader reader;
  private final BlockFiller filler;
  private final CacheStats stats;
  private final ExecutorService fetchExecutor;
  private final ExecutorService writeExecutor;
  private final ExecutorService vectoredExecutor;
  private final ObjectName beanName;
  /** The in-process service's per-table counters and working-set estimate (embedded mode only; the daemon has its own). */
  private final ObjectName insightBeanName;
  private final CachingInputStream.Factory streams = CachingInputStream.factory();
  /** Null without peer reads. */
  private final PeerReader peers;

  private CacheEngine(CacheConfig config, CacheMetadataService service, AutoCloseable serviceRelease, ChannelOpener opener, String name,
      BlockAdmission admission, PeerReader peers, CacheStats stats) {
    this.config = requireNonNull(config, "config is null");
    this.stats = requireNonNull(stats, "stats is null");
    this.service = requireNonNull(service, "service is null");
    this.serviceRelease = requireNonNull(serviceRelease, "serviceRelease is null");
    this.peers = peers;
    CacheFiles files = new CacheFiles(config.openFilesMax(), opener);
    service.addEvictionListener(files::evicted);
    this.store = new BlockStore(config.blockSize(), files, config.checksumVerification(), 2 * config.fetchThreads() + 16);
    this.fetchExecutor = pool("rubix-fetch-" + name, config.fetchThreads());
    this.writeExecutor = pool("rubix-write-" + name, 2);
    this.vectoredExecutor = pool("rubix-vectored-" + name, config.fetchThreads());
    // reports of blocks read: a lock and a few hash operations per block in process, a round trip to a daemon
    Executor reportExecutor = service.inProcess() ? Runnable::run : writeExecutor;
    this.reader = new BlockReader(config, service, store, fetchExecutor, writeExecutor, admission, peers, reportExecutor);
    this.filler = reader.filler();
    this.beanName = config.jmxEnabled() ? register(name) : null;
    this.insightBeanName = config.jmxEnabled() && service instanceof CacheInsights insights ? registerInsight(name, insights) : null;
  }

  /** An engine using this JVM's embedded metadata service for the configured cache directories. */
  public static CacheEngine embedded(CacheConfig config, String name, ChannelOpener opener) {
    return embedded(config, name, opener, BlockAdmission.ALL, null);
  }

  private static CacheEngine embedded(CacheConfig config, String name, ChannelOpener opener, BlockAdmission admission, PeerReader peers) {
    EmbeddedServices.Handle handle = EmbeddedServices.acquire(config);
    return new CacheEngine(config, handle.service(), handle, opener, name, admission, peers, new CacheStats());
  }

  /**
   * The engine {@code clientConfig} asks for: embedded (this JVM's in-process service), or a client
   * of the node's BookKeeper daemon.
   */
  public static CacheEngine create(CacheConfig config, ClientConfig clientConfig, String name, ChannelOpener opener) {
    return create(config, clientConfig, name, opener, BlockAdmission.ALL);
  }

  /** {@link #create(CacheConfig, ClientConfig, String, ChannelOpener)} caching only the blocks {@code admission} admits. */
  public static CacheEngine create(CacheConfig config, ClientConfig clientConfig, String name, ChannelOpener opener,
      BlockAdmission admission) {
    return create(config, clientConfig, name, opener, admission, null);
  }

  /** {@link #create(CacheConfig, ClientConfig, String, ChannelOpener, BlockAdmission)} reading the blocks it does not admit from {@code peers} (when not null) first. */
  public static CacheEngine create(CacheConfig config, ClientConfig clientConfig, String name, ChannelOpener opener,
      BlockAdmission admission, PeerReader peers) {
    if (clientConfig.embedded()) {
      return embedded(config, name, opener, admission, peers);
    }
    BookKeeperClient client = new BookKeeperClient(clientConfig, config.blockSize(), System::nanoTime);
    CacheStats stats = new CacheStats();
    // the daemon hears what this JVM counted (node-wide hit ratio, fallbacks), last when the engine closes
    CounterReporter reporter = CounterReporter.start(stats, client, clientConfig.countersInterval(), name);
    AutoCloseable release = () -> {
      reporter.close();
      client.close();
    };
    return new CacheEngine(config, client, release, opener, name, admission, peers, stats);
  }

  /** An engine using {@code service}, which the caller owns. */
  public static CacheEngine withService(CacheConfig config, CacheMetadataService service, String name, ChannelOpener opener) {
    return new CacheEngine(config, service, () -> {}, opener, name, BlockAdmission.ALL, null, new CacheStats());
  }

  public CachingInputStream open(ObjectVersion version, Source source) {
    return open(version, source, InputBytes.NONE);
  }

  /** A stream of {@code version}, the bytes it returns counted in {@code inputBytes} (a file system's Hadoop statistics). */
  public CachingInputStream open(ObjectVersion version, Source source, InputBytes inputBytes) {
    Source from = HandoffSource.wrap(source, peers, version, config.blockSize(), stats);
    return streams.open(reader, version, from, new StreamStats(stats), inputBytes, vectoredExecutor);
  }

  /** Fills blocks into this engine's cache for others (an owner node serving peers). */
  public BlockFiller filler() {
    return filler;
  }

  public CacheConfig config() {
    return config;
  }

  public CacheStats stats() {
    return stats;
  }

  public CacheMetadataService service() {
    return service;
  }

  public BlockStore store() {
    return store;
  }

  /**
   * Drops every cached version of {@code path} and of the paths under it (after a write, rename or delete of
   * a file or a directory through this file system), the tails and fetches in flight this engine keeps in
   * memory included: a version known by path and length alone (immutable freshness, Iceberg) comes back with
   * the same key when the path is written again with the same length.
   */
  public void invalidate(String path) {
    try {
      service.invalidatePath(path);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not invalidate cached blocks of {}", path, e);
    } finally {
      reader.forget(path);
    }
  }

  /**
   * The length of the cached version of {@code path} known by its path and length alone
   * ({@link CacheMetadataService#immutableLength}), or -1 when the cache has none or cannot tell: the
   * caller then asks the store.
   */
  public long immutableLength(String path) {
    try {
      return service.immutableLength(path);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not look up a cached version of {}", path, e);
      return -1;
    }
  }

  /**
   * Caches {@code version} from {@code bytes}, which hold all of it ({@code version.length()} bytes from its
   * start) because the caller has just read them from the source for its own reader: nothing is asked
   * of the source. Blocks the cache declines, or that another reader is fetching, stay as they are; a
   * failure is logged and costs nothing else.
   */
  public void keep(ObjectVersion version, byte[] bytes) {
    if (bytes.length < version.length()) {
      throw new IllegalArgumentException(bytes.length + " bytes do not hold " + version);
    }
    int blocks = version.blockCount(config.blockSize());
    StreamStats counted = new StreamStats(stats);
    Source held = (position, buffer, offset, length) -> {
      if (position + length > version.length()) {
        throw new EOFException(version + " ends before [" + position + ", +" + length + ")");
      }
      System.arraycopy(bytes, (int) position, buffer, offset, length);
    };
    try {
      for (int first = 0; first < blocks; first += CacheMetadataService.MAX_BLOCKS_PER_CALL) {
        filler.fill(version, held, counted, first, Math.min(blocks, first + CacheMetadataService.MAX_BLOCKS_PER_CALL),
            Duration.ZERO);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not cache {} from the bytes read for it", version, e);
    }
  }

  @Override
  public void close() throws IOException {
    fetchExecutor.shutdown();
    vectoredExecutor.shutdown();
    writeExecutor.shutdown();
    try {
      writeExecutor.awaitTermination(10, TimeUnit.SECONDS);
      fetchExecutor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.close();
    JmxBeans.unregister(beanName, insightBeanName);
    try {
      serviceRelease.close();
    } catch (Exception e) {
      throw new IOException("Releasing the cache metadata service failed", e);
    }
  }

  private ObjectName register(String name) {
    return JmxBeans.register(new CacheStatsBean(stats, service),
        "io.rubix:type=Cache,name=" + ObjectName.quote(name) + ",id=" + JmxBeans.idOf(this), "the cache of " + name);
  }

  private ObjectName registerInsight(String name, CacheInsights insights) {
    return JmxBeans.register(new CacheInsightBean(insights),
        "io.rubix:type=CacheInsight,name=" + ObjectName.quote(name) + ",id=" + JmxBeans.idOf(this), "the cache insight of " + name);
  }

  /** The per-table counters and working-set estimate of this engine's metadata service, when it reports them (embedded mode). */
  public Optional<CacheInsights> insights() {
    return service instanceof CacheInsights insights ? Optional.of(insights) : Optional.empty();
  }

  private static ExecutorService pool(String name, int threads) {
    AtomicInteger counter = new AtomicInteger();
    ThreadFactory factory = runnable -> {
      Thread thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
    ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }
}
