package io.rubix.presto.testing;

import io.rubix.hadoop.HasCacheEngine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.util.VersionInfo;

/**
 * Runs in a child JVM whose classpath is an engine's bundled Hadoop plus the rubix-presto jar: reads
 * every file of a directory through {@code io.rubix.hadoop.CachingFileSystem} wrapping the local file
 * system ({@link CountingFileSystem}), in passes with a new file system each, and prints per pass the
 * bytes read, whether they equal the file's bytes, and what the source served. Uses only the Hadoop
 * 2.7 API.
 *
 * <p>Arguments: data directory, cache directory, number of passes, the caching file system class (its
 * {@code rubix.fs.file.wrapped.impl} is set to {@link CountingFileSystem}). Output lines:
 * {@code hadoop=<version>}, {@code pass=<n> files=<n> bytes=<n> mismatches=<n> sourceOpens=<n> sourceBytes=<n> stream=<class>},
 * and, for the same class left with its default wrapped class, {@code default=<error or "ok">}. With a fifth
 * argument {@code bookkeeper}, {@code rubix.bookkeeper.embedded=true} (ports picked by the system) and
 * per pass also {@code service=<metadata service class> bookkeepers=<BookKeeper JMX beans>
 * transferPort=<port> recoveredBlocks=<n>}.
 */
public final class EngineReadMain {
  private EngineReadMain() {}

  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    Path cache = Path.of(args[1]);
    int passes = Integer.parseInt(args[2]);
    String cachingClass = args[3];
    boolean bookKeeper = args.length > 4 && args[4].equals("bookkeeper");
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    out.println("hadoop=" + VersionInfo.getVersion());
    List<Path> files = new ArrayList<>();
    try (Stream<Path> listing = Files.list(data)) {
      listing.filter(Files::isRegularFile).sorted().forEach(files::add);
    }
    Configuration conf = new Configuration(false);
    conf.set("fs.file.impl", cachingClass);
    conf.setBoolean("fs.file.impl.disable.cache", true);
    conf.set("rubix.fs.file.wrapped.impl", CountingFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cache.toString());
    conf.set("rubix.cache.block.size", "64k");
    if (bookKeeper) {
      conf.setBoolean("rubix.bookkeeper.embedded", true);
      conf.setInt("rubix.network.bookkeeper.server.port", 0);
      conf.setInt("rubix.network.transfer.server.port", 0);
      conf.setInt("rubix.bookkeeper.metrics.port", -1);
    }
    for (int pass = 1; pass <= passes; pass++) {
      try (FileSystem fs = FileSystem.get(URI.create("file:///"), conf)) {
        CountingFileSystem source = (CountingFileSystem) ((FilterFileSystem) fs).getRawFileSystem();
        long bytes = 0;
        int mismatches = 0;
        String stream = "";
        String openFile = "ok";
        for (Path file : files) {
          byte[] expected = Files.readAllBytes(file);
          org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
          openFile = openFileCheck(fs, path, expected, openFile);
          try (FSDataInputStream in = fs.open(path)) {
            stream = in.getWrappedStream().getClass().getName();
            ReadPattern.Result result = ReadPattern.check(in, expected, file.getFileName().toString().hashCode());
            bytes += result.bytes();
            mismatches += result.mismatches();
          }
        }
        out.println("pass=" + pass + " files=" + files.size() + " bytes=" + bytes + " mismatches=" + mismatches
            + " sourceOpens=" + source.opens() + " sourceBytes=" + source.bytes() + " stream=" + stream + " openFile=" + openFile
            + (bookKeeper ? " " + bookKeeperState(fs) : ""));
      }
    }
    out.println("default=" + initializeWithDefault(cachingClass, conf));
    // the in-process BookKeeper's threads do not keep the JVM alive; its shutdown hook closes it
    System.exit(0);
  }

  /**
   * Reads {@code path} whole through {@code openFile().build()} where this Hadoop has it (3.3+; called
   * reflectively, this class must load on 2.7): "ok", "absent", or what went wrong ({@code previous} if that was not "ok").
   */
  private static String openFileCheck(FileSystem fs, org.apache.hadoop.fs.Path path, byte[] expected, String previous) throws Exception {
    if (!previous.equals("ok")) {
      return previous;
    }
    java.lang.reflect.Method openFile;
    try {
      openFile = FileSystem.class.getMethod("openFile", org.apache.hadoop.fs.Path.class);
    } catch (NoSuchMethodException e) {
      return "absent";
    }
    Object builder = openFile.invoke(fs, path);
    java.util.concurrent.Future<?> future = (java.util.concurrent.Future<?>) Class.forName("org.apache.hadoop.fs.FSBuilder").getMethod("build").invoke(builder);
    try (FSDataInputStream in = (FSDataInputStream) future.get()) {
      byte[] actual = new byte[expected.length];
      in.readFully(0, actual, 0, actual.length);
      return Arrays.equals(actual, expected) ? "ok" : "mismatch";
    }
  }

  /** The caching file system's metadata service and the BookKeepers this JVM runs, seen through JMX. */
  private static String bookKeeperState(FileSystem fs) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names = server.queryNames(new ObjectName("io.rubix:type=BookKeeper,*"), null);
    String state = "service=" + ((HasCacheEngine) fs).cacheEngine().service().getClass().getName() + " bookkeepers=" + names.size();
    for (ObjectName name : names) {
      state += " transferPort=" + server.getAttribute(name, "TransferPort") + " recoveredBlocks=" + server.getAttribute(name, "RecoveredBlocks");
    }
    return state;
  }

  /** Initializes {@code cachingClass} for s3:// with its default wrapped class: "ok", or the error's message. */
  private static String initializeWithDefault(String cachingClass, Configuration base) throws ReflectiveOperationException {
    Configuration conf = new Configuration(base);
    conf.unset("rubix.fs.file.wrapped.impl");
    FileSystem fs = Class.forName(cachingClass).asSubclass(FileSystem.class).getDeclaredConstructor().newInstance();
    try {
      fs.initialize(URI.create("s3://bucket/"), conf);
      fs.close();
      return "ok";
    } catch (IOException | RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage().replace('\n', ' ');
    }
  }
}
