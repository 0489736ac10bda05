package io.rubix.iceberg;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.CacheEngine;
import io.rubix.core.client.ClientConfig;
import io.rubix.core.client.InProcessBookKeepers;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConfigReader;
import io.rubix.core.config.ConflictingCacheException;
import io.rubix.core.store.ChannelOpener;
import io.rubix.spi.config.BookKeeperKeys;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache engines of this JVM's {@link CachingFileIO}s, one per distinct cache and client settings,
 * created by the first FileIO that reads and closed when the last one holding it is closed.
 *
 * <p>A JVM-wide registry for the reason Hadoop has a FileSystem cache and rubix-core has
 * {@code EmbeddedServices}: Iceberg creates FileIOs reflectively (one per catalog, table operation or
 * deserialized task), so nothing else could hand them a shared engine, and one engine per FileIO would
 * mean thread pools, open cache files and a JMX bean per Spark task. FileIOs that are never closed (the
 * copies Spark deserializes on executors) keep their engine until the JVM exits; there is one per
 * distinct setting, so this is bounded by the configurations in use.
 */
final class SharedEngines {
  private static final Logger LOG = LoggerFactory.getLogger(SharedEngines.class);
  /** The name of the engines in JMX ({@code io.rubix:type=Cache,name="iceberg"}) and in their threads' names. */
  static final String NAME = "iceberg";
  private static final String PREFIX = "rubix.";

  /** What an engine is built from -> the engine. */
  @GuardedBy("ENGINES")
  private static final Map<Settings, Shared> ENGINES = new HashMap<>();

  private SharedEngines() {}

  /** A reference to the engine for {@code conf}'s {@code rubix.*} settings; {@link Lease#close()} gives it back. */
  static final class Lease implements AutoCloseable {
    /** A lease on no engine: caching is off ({@code rubix.cache.enabled=false}) or could not start. */
    static final Lease NONE = new Lease(null, null);

    private final Settings key;
    private final Shared shared;
    @GuardedBy("ENGINES")
    private boolean closed;

    private Lease(Settings key, Shared shared) {
      this.key = key;
      this.shared = shared;
    }

    /** The engine, or empty when reads go straight to the delegate. */
    Optional<CacheEngine> engine() {
      return shared == null ? Optional.empty() : Optional.of(shared.engine);
    }

    @Override
    public void close() {
      if (shared == null) {
        return;
      }
      synchronized (ENGINES) {
        if (closed) {
          return;
        }
        closed = true;
        if (--shared.references > 0) {
          return;
        }
        ENGINES.remove(key);
      }
      try {
        shared.engine.close();
      } catch (IOException e) {
        LOG.warn("Closing the cache engine of CachingFileIO failed", e);
      }
    }
  }

  private static final class Shared {
    final CacheEngine engine;
    @GuardedBy("ENGINES")
    int references;

    Shared(CacheEngine engine) {
      this.engine = engine;
    }
  }

  /**
   * A lease on the engine {@code conf}'s {@code rubix.*} settings describe, created on first use: embedded,
   * or a client of the node's BookKeeper daemon, as the Hadoop file systems decide it. Engines are keyed by
   * what they are built from (the parsed cache and client settings), not by every {@code rubix.*} key: a
   * key that does not change the engine (rubix-spark's executor list, which changes as executors come and
   * go) must not make a new one.
   *
   * @throws io.rubix.core.config.InvalidConfigException when a setting is invalid
   */
  static Lease acquire(Configuration conf) {
    CacheConfig config = CacheConfig.from(conf);
    if (!config.enabled()) {
      LOG.info("RubiX caching is disabled for Iceberg's CachingFileIO: reads go to the delegate FileIO");
      return Lease.NONE;
    }
    Settings key = new Settings(config, ClientConfig.from(conf), new ConfigReader(conf).getBoolean(BookKeeperKeys.IN_PROCESS));
    synchronized (ENGINES) {
      Shared shared = ENGINES.get(key);
      if (shared == null) {
        Optional<CacheEngine> engine = create(key, conf);
        if (engine.isEmpty()) {
          return Lease.NONE;
        }
        shared = new Shared(engine.get());
        ENGINES.put(key, shared);
      }
      shared.references++;
      return new Lease(key, shared);
    }
  }

  /** What an engine is built from. */
  private record Settings(CacheConfig cache, ClientConfig client, boolean inProcessBookKeeper) {}

  /** The engine, or empty when this JVM already caches in the same directories with other settings (one WARN). */
  private static Optional<CacheEngine> create(Settings settings, Configuration conf) {
    try {
      ClientConfig clientConfig = settings.client();
      if (settings.inProcessBookKeeper()) {
        clientConfig = InProcessBookKeepers.reach(conf, settings.cache(), clientConfig);
      }
      return Optional.of(CacheEngine.create(settings.cache(), clientConfig, NAME, ChannelOpener.DEFAULT));
    } catch (ConflictingCacheException e) {
      LOG.warn("RubiX caching is off for Iceberg's CachingFileIO, which reads from the delegate FileIO: {}", e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * The settings a {@link CachingFileIO} reads through: a copy of the catalog's Hadoop configuration
   * (or the classpath's, without one) with the catalog's own {@code rubix.*} properties set over it.
   */
  static Configuration settings(Map<String, String> catalogProperties, Configuration hadoopConf) {
    Configuration conf = hadoopConf == null ? new Configuration() : new Configuration(hadoopConf);
    catalogProperties.forEach((name, value) -> {
      if (name.startsWith(PREFIX)) {
        conf.set(name, value);
      }
    });
    return conf;
  }

  /** Whether {@code property} is a RubiX setting, which the delegate FileIO is not given. */
  static boolean isRubixSetting(String property) {
    return property.startsWith(PREFIX);
  }
}
