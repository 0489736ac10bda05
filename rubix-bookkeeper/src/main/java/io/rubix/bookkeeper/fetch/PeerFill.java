package io.rubix.bookkeeper.fetch;

import io.rubix.core.CacheEngine;
import io.rubix.core.cluster.ClusterLocality;
import io.rubix.core.cluster.setup.ClusterSetup;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.metadata.InProcessMetadataService;
import io.rubix.core.peer.PeerClient;
import io.rubix.core.peer.PeerConfig;
import io.rubix.core.peer.PeerFetchConfig;
import io.rubix.core.peer.PeerReader;
import io.rubix.core.stats.CacheCounter;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.config.PeerFetchKeys;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a BookKeeper needs to fetch blocks from the source for peers: a cache engine on its own
 * metadata service (the read path's fetch, so peers and local readers share one source read per
 * block), the sources opened with the BookKeeper's configuration, and the bounded {@link OwnerFetcher}.
 */
public final class PeerFill implements AutoCloseable {
  /** Gauge: the stores ({@code rubix.network.transfer.fetch.allowed.authorities}) this node fetches from for peers; 0 is none. */
  public static final String ALLOWED_STORES = "rubix_peer_fill_allowed_stores";
  private static final Logger LOG = LoggerFactory.getLogger(PeerFill.class);
  private static final CacheCounter[] COUNTERS = {CacheCounter.PEER_FILL_REQUESTS, CacheCounter.PEER_FILL_SOURCE_REQUESTS,
      CacheCounter.PEER_FILL_SOURCE_BYTES, CacheCounter.PEER_FILL_STALE, CacheCounter.PEER_FILL_FAILED, CacheCounter.PEER_FILL_BUSY, CacheCounter.PEER_FILL_NOT_ALLOWED};

  /** How long an owner answers NOT_CACHED for an object version after fetching it failed (other objects are still fetched). */
  static final Duration SOURCE_FAILURE_PAUSE = Duration.ofSeconds(30);

  private final CacheEngine engine;
  private final SourceFileSystems sources;
  private final OwnerFetcher fetcher;
  private final int allowedStores;
  /** The daemon's own view of its cluster, for hand-offs; null when its configuration names none. */
  private final ClusterLocality locality;

  private PeerFill(CacheEngine engine, SourceFileSystems sources, OwnerFetcher fetcher, int allowedStores, ClusterLocality locality) {
    this.allowedStores = allowedStores;
    this.locality = locality;
    this.engine = engine;
    this.sources = sources;
    this.fetcher = fetcher;
  }

  /**
   * Starts the owner-side fetches of a BookKeeper: {@code sourceConf} is its own Hadoop configuration
   * (its credentials for the sources), {@code service} its metadata service.
   */
  public static PeerFill start(CacheConfig cache, PeerFetchConfig fetch, Configuration sourceConf, InProcessMetadataService service) {
    return start(cache, fetch, null, sourceConf, service);
  }

  /**
   * {@link #start(CacheConfig, PeerFetchConfig, Configuration, InProcessMetadataService)} that, when this
   * daemon's configuration names its cluster ({@code rubix.cluster.manager}) and {@code peer} its transfer
   * port, first takes blocks it now owns from their previous owners (for {@code rubix.network.transfer.handoff.window}
   * after it starts: a node that joined moves cached blocks instead of fetching them again).
   */
  public static PeerFill start(CacheConfig cache, PeerFetchConfig fetch, PeerConfig peer, Configuration sourceConf,
      InProcessMetadataService service) {
    if (fetch.enabled() && fetch.authorities().isEmpty()) {
      LOG.warn("This node fetches blocks for its peers from no store: {} is unset and this daemon's configuration names none "
          + "(fs.defaultFS, fs.<scheme>.bucket.<bucket>.<option>). Peers read the blocks this node owns and has not cached from the store "
          + "themselves, uncached here. Set it to the stores this node may fetch from with its credentials (s3a://bucket, or * for any)",
          PeerFetchKeys.FETCH_ALLOWED_AUTHORITIES.name());
    } else if (fetch.enabled()) {
      LOG.info("This node fetches blocks for its peers from {} (schemes {})", fetch.authorities(), fetch.schemes());
    }
    CacheEngine engine = CacheEngine.withService(cache, service, "bookkeeper-peer-fill", ChannelOpener.DEFAULT);
    SourceFileSystems sources = new SourceFileSystems(sourceConf, cache);
    ClusterLocality locality = peer == null || peer.port() <= 0 ? null : cluster(sourceConf);
    Duration window = new ConfigReader(sourceConf).getDuration(PeerFetchKeys.HANDOFF_WINDOW, Duration.ZERO);
    PeerReader handOff = locality == null || window.isZero() ? null
        : new PeerClient(peer, new PeerFetchConfig(false, 1, Duration.ZERO, 1, Set.of(), 0), locality, window);
    OwnerFetcher fetcher = new OwnerFetcher(fetch, cache.blockSize(), engine.filler(), sources, engine.stats(),
        SOURCE_FAILURE_PAUSE, System::nanoTime, handOff);
    return new PeerFill(engine, sources, fetcher, fetch.authorities().size(), locality);
  }

  /** The cluster this daemon's configuration names, or null (none, or one it cannot set up: logged). */
  private static ClusterLocality cluster(Configuration conf) {
    try {
      return ClusterSetup.locality(conf);
    } catch (RuntimeException e) {
      LOG.warn("This node cannot hand blocks over from their previous owners: its cluster settings fail ({})", e.getMessage());
      return null;
    }
  }

  public OwnerFetcher fetcher() {
    return fetcher;
  }

  /** The owner-side peer fetch counters, by statistic name, and how many stores this node fetches from for peers. */
  public Map<String, Long> counters() {
    Map<String, Long> values = new LinkedHashMap<>();
    values.put(ALLOWED_STORES, (long) allowedStores);
    for (CacheCounter counter : COUNTERS) {
      values.put(counter.statisticName(), engine.stats().get(counter));
    }
    return values;
  }

  @Override
  public void close() {
    fetcher.close();
    try {
      engine.close();
    } catch (IOException e) {
      LOG.debug("Closing the peer-fill cache engine failed", e);
    }
    try {
      sources.close();
    } catch (IOException e) {
      LOG.debug("Closing the peer-fill sources failed", e);
    }
    if (locality != null) {
      locality.close();
    }
  }
}
