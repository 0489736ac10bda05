package io.rubix.core.metadata;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.rubix.core.config.CacheConfig;
import io.rubix.core.config.CacheRules;
import io.rubix.core.config.ConflictingCacheException;
import io.rubix.core.metadata.journal.FileMetadataJournal;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import io.rubix.spi.config.ConfigKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process metadata services, one per set of cache directories, shared by every caching file
 * system of this JVM that uses those directories with the same settings (block size, caps, lease
 * timeout, most objects) and closed when the last one is released. A request for the same
 * directories with other settings fails with a {@link ConflictingCacheException} naming the setting:
 * sharing would silently apply the first one's.
 *
 * <p>This is the one JVM-wide registry in RubiX, for the same reason Hadoop has a FileSystem cache:
 * file systems are created reflectively, one per scheme and bucket, yet the directories they cache
 * into have one cap to honour. Two file systems with different directories get independent services.
 *
 * <p>A directory's cap holds per node whatever the number of JVMs: the JVM holding the file lock of
 * {@code <dir>/embedded/primary} caches there and journals its metadata there, so its cache survives
 * a restart of the JVM or of the file system; another JVM using the directory at the same time does
 * not cache in it (one WARN), and caches only in those of its directories it holds, or nowhere. The
 * OS releases the lock when the JVM exits or is killed. Several JVMs of one node share a cache
 * through the BookKeeper daemon, which enforces one cap for all of them.
 *
 * <p>The BookKeepers started inside this JVM ({@code rubix.bookkeeper.embedded}) have their own
 * registry, {@link io.rubix.core.client.InProcessBookKeepers}.
 */
public final class EmbeddedServices {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServices.class);
  /** Absolute cache directories -> the service caching in them. */
  @GuardedBy("SERVICES")
  private static final Map<List<Path>, Shared> SERVICES = new HashMap<>();
  private static final String EMBEDDED = "embedded";
  private static final String PRIMARY = "primary";

  private EmbeddedServices() {}

  /** A reference to a shared service; {@link #close()} releases it. */
  public static final class Handle implements AutoCloseable {
    private final List<Path> key;
    private final Shared shared;
    private boolean closed;

    private Handle(List<Path> key, Shared shared) {
      this.key = key;
      this.shared = shared;
    }

    public InProcessMetadataService service() {
      return shared.service;
    }

    @Override
    public void close() {
      synchronized (SERVICES) {
        if (closed) {
          return;
        }
        closed = true;
        if (--shared.references == 0) {
          SERVICES.remove(key);
          shared.service.close();
          shared.releaseLocks();
        }
      }
    }
  }

  /**
   * A reference to the service for {@code config}'s directories, opened on the first call.
   *
   * @throws ConflictingCacheException when a service is open on the same directories with other settings
   */
  public static Handle acquire(CacheConfig config) {
    List<Path> key = config.cacheDirs().stream().map(p -> p.toAbsolutePath().normalize()).toList();
    Settings settings = Settings.of(config);
    synchronized (SERVICES) {
      Shared shared = SERVICES.get(key);
      if (shared == null) {
        shared = Shared.create(config, key);
        SERVICES.put(key, shared);
      } else {
        settings.requireSame(shared.settings, "the cache already open on " + key);
      }
      shared.references++;
      return new Handle(key, shared);
    }
  }

  /** What two users of one service must agree on: everything the service is built from besides its directories. */
  private record Settings(int blockSize, long maxSizePerDisk, int usagePercentage, Duration leaseTimeout, long maxObjects, CacheRules rules) {
    static Settings of(CacheConfig config) {
      return new Settings(config.blockSize(), config.maxSizePerDisk(), config.usagePercentage(), config.leaseTimeout(), config.maxObjects(),
          config.rules());
    }

    void requireSame(Settings open, String where) {
      requireSame(CacheKeys.BLOCK_SIZE, blockSize, open.blockSize, where);
      requireSame(CacheKeys.MAX_SIZE, maxSizePerDisk, open.maxSizePerDisk, where);
      requireSame(CacheKeys.USAGE_PERCENTAGE, usagePercentage, open.usagePercentage, where);
      requireSame(CacheKeys.LEASE_TIMEOUT, leaseTimeout, open.leaseTimeout, where);
      requireSame(CacheKeys.MAX_OBJECTS, maxObjects, open.maxObjects, where);
      requireSame(CacheKeys.RULES, rules, open.rules, where);
    }

    private static void requireSame(ConfigKey key, Object here, Object there, String where) {
      if (!here.equals(there)) {
        throw new ConflictingCacheException(key, here, there, where);
      }
    }
  }

  private static final class Shared {
    final Settings settings;
    final InProcessMetadataService service;
    final List<FileChannel> locks;
    int references;

    Shared(CacheConfig config, InProcessMetadataService service, List<FileChannel> locks) {
      this.settings = Settings.of(config);
      this.service = service;
      this.locks = locks;
    }

    static Shared create(CacheConfig config, List<Path> dirs) {
      // a directory's cap holds per node: only the JVM holding its lock caches in it (the OS drops
      // the lock when that JVM dies, kill -9 included, so no state goes stale)
      List<FileChannel> locks = new ArrayList<>();
      List<Path> roots = new ArrayList<>();
      List<Path> notOwned = new ArrayList<>();
      for (Path dir : dirs) {
        Path primary = dir.resolve(EMBEDDED).resolve(PRIMARY);
        FileChannel lock;
        try {
          lock = tryLock(primary);
        } catch (IOException | UncheckedIOException e) {
          // a broken directory is not someone else's: it stays in the service, whose file creation then fails,
          // so reads count it as a metadata failure (and fail in strict mode) instead of a full cache
          LOG.warn("Cache directory {} is not usable; reads will go to the source", dir, e);
          roots.add(primary);
          continue;
        }
        if (lock == null) {
          notOwned.add(dir);
          continue;
        }
        locks.add(lock);
        roots.add(primary);
        // private directories of JVMs of an older RubiX, which each took the whole cap
        deleteAbandonedQuietly(dir.resolve(EMBEDDED), null);
      }
      if (!notOwned.isEmpty()) {
        LOG.warn("Cache directories {} are used by another JVM (or another cache of this JVM), which owns their cap: this JVM does not"
            + " cache in them and reads what it would have cached there from the source. To share a cache between JVMs of a node, set {}=false"
            + " and run the BookKeeper daemon (or {}=true in one JVM).", notOwned, BookKeeperKeys.EMBEDDED_MODE.name(), BookKeeperKeys.IN_PROCESS.name());
      }
      if (roots.isEmpty()) {
        // a service with no space: every grant is denied before any file is created, every read goes to the source
        Path unused = dirs.get(0).resolve(EMBEDDED).resolve(PRIMARY);
        return new Shared(config, InProcessMetadataService.withoutSpace(config, unused), locks);
      }
      return new Shared(config, InProcessMetadataService.forDirectories(config, roots, new FileMetadataJournal(config.blockSize())), locks);
    }

    /**
     * Creates {@code root} and locks it for this service, or returns null when someone else holds it.
     *
     * @throws IOException when the directory or its lock file cannot be made
     */
    private static FileChannel tryLock(Path root) throws IOException {
      Files.createDirectories(root);
      FileChannel channel = FileChannel.open(root.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      try {
        if (channel.tryLock() != null) {
          return channel;
        }
      } catch (OverlappingFileLockException heldInThisJvm) {
        // another service of this JVM owns it
      } catch (IOException e) {
        channel.close();
        throw e;
      }
      channel.close();
      return null;
    }

    private static void releaseAll(List<FileChannel> locks) {
      for (FileChannel lock : locks) {
        try {
          lock.close();
        } catch (IOException e) {
          LOG.debug("Closing cache lock failed", e);
        }
      }
    }

    void releaseLocks() {
      releaseAll(locks);
    }
  }

  private static void deleteAbandonedQuietly(Path embedded, Path own) {
    try {
      deleteAbandoned(embedded, own);
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("Could not clean up abandoned cache directories under {}", embedded, e);
    }
  }

  /** Deletes private directories of JVMs that are gone (their lock is free); never the persistent one. */
  private static void deleteAbandoned(Path embedded, Path own) throws IOException {
    try (DirectoryStream<Path> siblings = Files.newDirectoryStream(embedded)) {
      for (Path sibling : siblings) {
        if (sibling.equals(own) || sibling.getFileName().toString().equals(PRIMARY) || !Files.isDirectory(sibling)) {
          continue;
        }
        try (FileChannel channel = FileChannel.open(sibling.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
          FileLock lock = channel.tryLock();
          if (lock == null) {
            continue;
          }
          lock.release();
        } catch (OverlappingFileLockException inThisJvm) {
          continue;
        }
        LOG.info("Deleting cache files of a JVM that is gone: {}", sibling);
        try (Stream<Path> files = Files.walk(sibling)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }
}
