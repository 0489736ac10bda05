package io.rubix.bookkeeper.cli;

import io.rubix.core.CacheEngine;
import io.rubix.core.config.CacheRules;
import io.rubix.core.stats.CacheCounter;
import io.rubix.hadoop.HasCacheEngine;
import io.rubix.spi.config.BookKeeperKeys;
import io.rubix.spi.config.CacheKeys;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.util.functional.FutureIO;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rubix warmup PATH...}: reads objects through the caching file system with the daemon's
 * metadata (embedded mode off), so their blocks land in this node's cache. Blocks already cached are
 * read from local disk and not fetched again, so an interrupted warmup resumes where it stopped.
 */
@Command(name = "warmup", mixinStandardHelpOptions = true,
    description = {"Prefetches objects into this node's cache by reading them through the RubiX caching file system with the "
        + "BookKeeper daemon's metadata. Blocks already cached are not fetched again: rerunning an interrupted warmup resumes it.",
        "s3a://, s3:// and s3n:// use RubiX's caching S3A file systems unless fs.<scheme>.impl names a class other than S3A's; other "
        + "schemes need fs.<scheme>.impl set to a RubiX caching file system in the configuration."})
final class WarmupCommand implements Callable<Integer> {
  private static final int MAX_RANGE = 8 << 20;
  private static final Map<String, String> S3_CLASSES = Map.of(
      "s3a", "io.rubix.hadoop.CachingS3AFileSystem",
      "s3", "io.rubix.hadoop.CachingS3FileSystem",
      "s3n", "io.rubix.hadoop.CachingS3NFileSystem");
  private static final String STOCK_S3A = "org.apache.hadoop.fs.s3a.S3AFileSystem";
  private static final Set<CacheCounter> FALLBACKS = EnumSet.of(CacheCounter.FALLBACK_CACHE_READ, CacheCounter.FALLBACK_CACHE_WRITE,
      CacheCounter.FALLBACK_CHECKSUM, CacheCounter.FALLBACK_METADATA, CacheCounter.FALLBACK_NO_SPACE, CacheCounter.FALLBACK_INFLIGHT);

  @Spec
  CommandSpec spec;
  @Mixin
  DaemonOptions daemonOptions;

  @Parameters(arity = "1..*", paramLabel = "PATH",
      description = "A file, a directory (all files below it) or a glob, e.g. 's3a://bucket/warehouse/t/dt=2024-*/*.orc'. Files a path rule "
          + "(rubix.cache.rules) excludes are skipped and counted; rule quotas hold (the daemon enforces them).")
  List<String> paths;

  @Option(names = "--parallelism", paramLabel = "N", defaultValue = "4",
      description = "Ranges of up to 8 MiB read at once (1-256). Default: ${DEFAULT-VALUE}.")
  int parallelism;

  @Option(names = "--no-progress", description = "Do not draw the progress bar on stderr.")
  boolean noProgress;

  private record Range(FileSystem fs, FileStatus status, long offset, int length) {}

  private record Target(FileSystem fs, FileStatus status) {}

  @Override
  public Integer call() throws Exception {
    if (parallelism < 1 || parallelism > 256) {
      throw new ParameterException(spec.commandLine(), "--parallelism must be in [1, 256]: " + parallelism);
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Configuration conf = daemonOptions.configuration();
    conf.set(BookKeeperKeys.EMBEDDED_MODE.name(), "false");
    int blockSize;
    try (DaemonOptions.Daemon daemon = DaemonOptions.connect(conf)) {
      blockSize = daemon.info().getBlockSize();
    }
    conf.set(CacheKeys.BLOCK_SIZE.name(), Integer.toString(blockSize));
    conf.set(CacheKeys.ENABLED.name(), "true");

    CacheRules rules = CacheRules.from(conf);

    Map<String, FileSystem> fileSystems = new LinkedHashMap<>();
    boolean failed = false;
    try {
      Map<Path, Target> files = new LinkedHashMap<>();
      Set<Path> excluded = new HashSet<>();
      for (String arg : paths) {
        try {
          failed |= !expand(new Path(arg), conf, rules, fileSystems, files, excluded, err);
        } catch (IOException | IllegalArgumentException e) {
          err.println("rubix warmup: " + arg + ": " + e.getMessage());
          failed = true;
        }
      }
      List<Range> ranges = new ArrayList<>();
      long total = 0;
      int rangeSize = Math.max(blockSize, MAX_RANGE / blockSize * blockSize);
      for (Target target : files.values()) {
        FileSystem fs = target.fs();
        FileStatus status = target.status();
        for (long offset = 0; offset < status.getLen(); offset += rangeSize) {
          ranges.add(new Range(fs, status, offset, (int) Math.min(rangeSize, status.getLen() - offset)));
        }
        total += status.getLen();
      }
      failed |= !read(ranges, total, rangeSize, err);

      Map<CacheCounter, Long> counted = new LinkedHashMap<>();
      for (FileSystem fs : fileSystems.values()) {
        CacheEngine engine = ((HasCacheEngine) fs).cacheEngine();
        for (CacheCounter counter : CacheCounter.values()) {
          counted.merge(counter, engine.stats().get(counter), Long::sum);
        }
      }
      long fallbacks = FALLBACKS.stream().mapToLong(counted::get).sum();
      out.printf("warmed up %d file%s, %s: %s already cached, %s fetched from the source%n", files.size(), files.size() == 1 ? "" : "s",
          Formats.bytes(total), Formats.bytes(counted.get(CacheCounter.HIT_BYTES)), Formats.bytes(counted.get(CacheCounter.MISS_BYTES)));
      if (!excluded.isEmpty()) {
        out.printf("skipped %d file%s excluded from the cache by path rules (%s)%n", excluded.size(), excluded.size() == 1 ? "" : "s",
            CacheKeys.RULES.name());
      }
      if (fallbacks > 0) {
        err.printf("rubix warmup: %d reads went to the source without caching (cache full, a path rule's quota reached, daemon or disk "
            + "errors: see rubix status and the daemon's log)%n", fallbacks);
        failed = true;
      }
    } finally {
      for (FileSystem fs : fileSystems.values()) {
        try {
          fs.close();
        } catch (IOException e) {
          err.println("rubix warmup: closing " + fs.getUri() + " failed: " + e.getMessage());
        }
      }
    }
    return failed ? RubixCli.FAILED : 0;
  }

  /**
   * Adds the files {@code pattern} names to {@code files}, or to {@code excluded} those {@code rules}
   * exclude from the cache; false (with a message) when it names none.
   */
  private boolean expand(Path pattern, Configuration conf, CacheRules rules, Map<String, FileSystem> fileSystems, Map<Path, Target> files,
      Set<Path> excluded, PrintWriter err) throws IOException {
    FileSystem fs = fileSystem(pattern, conf, fileSystems);
    FileStatus[] matches = fs.globStatus(pattern);
    if (matches == null || matches.length == 0) {
      err.println("rubix warmup: " + pattern + ": no such file or directory");
      return false;
    }
    for (FileStatus match : matches) {
      if (match.isDirectory()) {
        RemoteIterator<LocatedFileStatus> below = fs.listFiles(match.getPath(), true);
        while (below.hasNext()) {
          LocatedFileStatus file = below.next();
          add(new Target(fs, file), rules, files, excluded);
        }
      } else {
        add(new Target(fs, match), rules, files, excluded);
      }
    }
    return true;
  }

  private static void add(Target target, CacheRules rules, Map<Path, Target> files, Set<Path> excluded) {
    Path path = target.status().getPath();
    if (rules.caches(path.toString())) {
      files.putIfAbsent(path, target);
    } else {
      excluded.add(path);
    }
  }

  private static String key(URI uri) {
    return uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
  }

  private static FileSystem fileSystem(Path path, Configuration conf, Map<String, FileSystem> fileSystems) throws IOException {
    URI uri = path.toUri().getScheme() == null ? FileSystem.getDefaultUri(conf) : path.toUri();
    String key = key(uri);
    FileSystem existing = fileSystems.get(key);
    if (existing != null) {
      return existing;
    }
    Configuration fsConf = new Configuration(conf);
    String implKey = "fs." + uri.getScheme() + ".impl";
    String configured = fsConf.getTrimmed(implKey);
    if (S3_CLASSES.containsKey(uri.getScheme()) && (configured == null || configured.equals(STOCK_S3A))) {
      fsConf.set(implKey, S3_CLASSES.get(uri.getScheme()));
    }
    FileSystem fs = FileSystem.newInstance(uri, fsConf);
    if (!(fs instanceof HasCacheEngine caching) || caching.cacheEngine() == null) {
      String impl = fs.getClass().getName();
      fs.close();
      throw new IOException(implKey + " is " + impl + ", not a RubiX caching file system: set it to io.rubix.hadoop.CachingFileSystem "
          + "(with " + CacheKeys.WRAPPED_IMPL.forScheme(uri.getScheme()) + ") or a scheme's RubiX class, and "
          + CacheKeys.ENABLED.name() + "=true");
    }
    fileSystems.put(key, fs);
    return fs;
  }

  /** Reads every range through the cache; false when some could not be read. */
  private boolean read(List<Range> ranges, long total, int rangeSize, PrintWriter err) throws InterruptedException {
    AtomicLong done = new AtomicLong();
    Map<Path, String> failures = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    ExecutorService workers = Executors.newFixedThreadPool(parallelism, daemonThreads("rubix-warmup"));
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemonThreads("rubix-warmup-progress"));
    if (!noProgress) {
      ticker.scheduleAtFixedRate(() -> {
        synchronized (err) {
          err.print("\r" + ProgressBar.render(done.get(), total, System.nanoTime() - start));
          err.flush();
        }
      }, 0, 250, TimeUnit.MILLISECONDS);
    }
    ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[rangeSize]);
    try {
      List<Future<?>> pending = new ArrayList<>();
      for (Range range : ranges) {
        pending.add(workers.submit(() -> {
          Path path = range.status().getPath();
          if (failures.containsKey(path)) {
            return;
          }
          try (FSDataInputStream in = FutureIO.awaitFuture(range.fs().openFile(path).withFileStatus(range.status()).build())) {
            in.readFully(range.offset(), buffers.get(), 0, range.length());
            done.addAndGet(range.length());
          } catch (IOException | RuntimeException e) {
            failures.putIfAbsent(path, "reading " + range.length() + " bytes at " + range.offset() + " failed: " + e);
          }
        }));
      }
      for (Future<?> future : pending) {
        try {
          future.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("warmup task failed", e.getCause());
        }
      }
    } finally {
      workers.shutdownNow();
      ticker.shutdownNow();
      ticker.awaitTermination(1, TimeUnit.SECONDS);
    }
    synchronized (err) {
      if (!noProgress) {
        err.println("\r" + ProgressBar.render(done.get(), total, System.nanoTime() - start));
      }
      failures.forEach((path, message) -> err.println("rubix warmup: " + path + ": " + message));
      err.flush();
    }
    return failures.isEmpty();
  }

  private static ThreadFactory daemonThreads(String name) {
    AtomicLong count = new AtomicLong();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
