package io.rubix.core.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.ConflictingCacheException;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BookKeepers started inside this JVM ({@code rubix.bookkeeper.embedded}, for Presto/Trino
 * workers): one per configured Thrift port, started by the first caching file system that asks and
 * kept until the JVM exits. A JVM-wide registry for the reason Hadoop has a FileSystem cache: file
 * systems are created reflectively, one per scheme and bucket, and a port serves one BookKeeper. A
 * later request for the same port must name the same cache directories and block size, else it
 * fails with a {@link ConflictingCacheException} (it would silently cache into the first one's).
 */
public final class InProcessBookKeepers {
  private static final Logger LOG = LoggerFactory.getLogger(InProcessBookKeepers.class);
  /** Configured Thrift port -> the BookKeeper started (or not) for it. */
  @GuardedBy("STARTED")
  private static final Map<Integer, Started> STARTED = new HashMap<>();

  private InProcessBookKeepers() {}

  /** What a BookKeeper was started with, and how file systems reach it. */
  private record Started(List<Path> cacheDirs, int blockSize, ClientConfig client) {}

  /**
   * The BookKeeper this JVM runs for {@code client}'s port, started on the first call (through the
   * {@link InProcessBookKeeper} on the classpath, configured by {@code conf}) and shared by later
   * ones; how to reach it. When it cannot start, {@code client} as a daemon client: another JVM of
   * the node may serve that port, and reads go to the source while none does.
   *
   * @throws ConflictingCacheException when this JVM already asked for a BookKeeper on that port with
   *     other cache directories or another block size
   */
  public static ClientConfig reach(Configuration conf, CacheConfig cache, ClientConfig client) {
    List<Path> dirs = cache.cacheDirs().stream().map(p -> p.toAbsolutePath().normalize()).toList();
    synchronized (STARTED) {
      Started started = STARTED.get(client.port());
      if (started == null) {
        started = new Started(dirs, cache.blockSize(), start(conf, client));
        STARTED.put(client.port(), started);
        return started.client;
      }
      String where = "the BookKeeper this JVM already runs for " + BookKeeperKeys.SERVER_PORT.name() + "=" + client.port();
      if (!started.cacheDirs.equals(dirs)) {
        throw new ConflictingCacheException(CacheKeys.DIRS, dirs, started.cacheDirs, where);
      }
      if (started.blockSize != cache.blockSize()) {
        throw new ConflictingCacheException(CacheKeys.BLOCK_SIZE, cache.blockSize(), started.blockSize, where);
      }
      return started.client;
    }
  }

  private static ClientConfig start(Configuration conf, ClientConfig client) {
    ClientConfig fallback = client.withDaemon(client.host(), client.port());
    Iterator<InProcessBookKeeper> starters = ServiceLoader.load(InProcessBookKeeper.class, InProcessBookKeeper.class.getClassLoader()).iterator();
    if (!starters.hasNext()) {
      LOG.warn("{}=true but no BookKeeper implementation is on the classpath (rubix-bookkeeper); using the BookKeeper at {}:{}",
          BookKeeperKeys.IN_PROCESS.name(), client.host(), client.port());
      return fallback;
    }
    try {
      return starters.next().start(conf, client);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not start a BookKeeper in this JVM; using the BookKeeper at {}:{} if one answers", client.host(), client.port(), e);
      return fallback;
    }
  }
}
