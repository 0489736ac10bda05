package io.rubix.bookkeeper;

import io.rubix.core.stats.CacheCounter;
import io.rubix.core.stats.CacheStats;
import io.rubix.hadoop.CachingS3AFileSystem;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * A reading JVM for the chaos and crash tests:
 * {@code ChaosReaderMain [-Dkey=value]... --seed N --threads T --min-length L s3a://bucket/}.
 *
 * <p>It opens a {@link CachingS3AFileSystem}, prints {@code READY} and follows commands on stdin:
 * {@code VERSION <key> <n> <length>} announces that version {@code n} of {@code key} (bytes from
 * {@link ChaosContent}) may exist from now on, answered with {@code ACK <key> <n>} once it is known;
 * {@code GO} starts the reading threads; {@code STOP} ends them, and the JVM prints
 * {@code SUMMARY reads=.. bytes=.. wrong=.. changed=.. failed=..} and every {@link CacheCounter}, then exits.
 *
 * <p>Each read opens a fresh stream of a random announced key ({@code fs.open}, or {@code openFile()}
 * with a status just taken) and either reads a random range positionally or reads sequentially from a
 * random position to the end. The bytes must equal the same range of one announced version entirely
 * (a sequential read also its length); a positioned range always lies below {@code --min-length}, the
 * shortest length any version has. Per read it prints one line:
 * <ul>
 *   <li>{@code READ <key> <n> <openMillis> <endMillis> <bytes>}: matched version {@code n}; the test
 *       checks that version {@code n} was current at some time between open and end.
 *   <li>{@code WRONG <key> <wrongBytes> <detail>}: no version matches.
 *   <li>{@code CHANGED <key> <openMillis> <endMillis> <message>}: S3A's change detection refused a GET
 *       because the object changed under the open stream (plain S3A fails such a read the same way).
 *   <li>{@code FAIL <key> <exception>}, followed by {@code TRACE <line>} lines: any other failure.
 * </ul>
 */
public final class ChaosReaderMain {
  private static final String REMOTE_FILE_CHANGED = "org.apache.hadoop.fs.s3a.RemoteFileChangedException";
  private static final int MAX_POSITIONED = 1024 * 1024;

  /** key -> version -> length, in announcement order. */
  private final Map<String, Map<Integer, Integer>> versions = new ConcurrentHashMap<>();
  /** Recently used version contents, (key, version) -> bytes. */
  private final Map<String, byte[]> contents = new LinkedHashMap<>(16, 0.75f, true);
  private final FileSystem fs;
  private final String bucket;
  private final int minLength;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong wrong = new AtomicLong();
  private final AtomicLong changed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  private ChaosReaderMain(FileSystem fs, String bucket, int minLength) {
    this.fs = fs;
    this.bucket = bucket;
    this.minLength = minLength;
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    long seed = 1;
    int threads = 2;
    int minLength = 0;
    String bucket = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.startsWith("-D") && arg.contains("=")) {
        conf.set(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      } else if (arg.equals("--seed")) {
        seed = Long.parseLong(args[++i]);
      } else if (arg.equals("--threads")) {
        threads = Integer.parseInt(args[++i]);
      } else if (arg.equals("--min-length")) {
        minLength = Integer.parseInt(args[++i]);
      } else {
        bucket = arg;
      }
    }
    if (bucket == null || minLength <= 0) {
      System.err.println("Usage: ChaosReaderMain [-Dkey=value]... --seed N --threads T --min-length L s3a://bucket/");
      System.exit(2);
    }
    FileSystem fs = FileSystem.newInstance(URI.create(bucket), conf);
    if (!(fs instanceof CachingS3AFileSystem caching) || caching.cacheEngine() == null) {
      throw new IllegalStateException("Not a caching S3A file system: " + fs.getClass().getName());
    }
    CacheStats stats = caching.cacheEngine().stats();
    ChaosReaderMain main = new ChaosReaderMain(fs, bucket, minLength);
    CountDownLatch go = new CountDownLatch(1);
    synchronized (System.out) {
      System.out.println("READY");
      System.out.flush();
    }
    Thread commands = new Thread(() -> main.followCommands(go), "commands");
    commands.setDaemon(true);
    commands.start();
    go.await();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Random random = new Random(seed * 31 + t);
      Thread reader = new Thread(() -> main.readUntilStopped(random), "chaos-reader-" + t);
      reader.start();
      readers.add(reader);
    }
    for (Thread reader : readers) {
      reader.join();
    }
    fs.close();
    StringBuilder summary = new StringBuilder("SUMMARY reads=").append(main.reads).append(" bytes=").append(main.bytes)
        .append(" wrong=").append(main.wrong).append(" changed=").append(main.changed).append(" failed=").append(main.failed);
    for (CacheCounter counter : CacheCounter.values()) {
      summary.append(' ').append(counter.name()).append('=').append(stats.get(counter));
    }
    print(summary.toString());
    System.exit(0);
  }

  private void followCommands(CountDownLatch go) {
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        String[] fields = line.split(" ");
        switch (fields[0]) {
          case "VERSION" -> {
            versions.computeIfAbsent(fields[1], k -> new ConcurrentHashMap<>()).put(Integer.parseInt(fields[2]), Integer.parseInt(fields[3]));
            print("ACK " + fields[1] + " " + fields[2]);
          }
          case "GO" -> go.countDown();
          case "STOP" -> {
            stop.set(true);
            go.countDown();
          }
          default -> throw new IllegalArgumentException("Unknown command: " + line);
        }
      }
    } catch (IOException e) {
      // stdin closed: the test JVM is gone
    }
    stop.set(true);
    go.countDown();
  }

  private void readUntilStopped(Random random) {
    List<String> keys = new ArrayList<>(versions.keySet());
    keys.sort(null);
    while (!stop.get()) {
      String key = keys.get(random.nextInt(keys.size()));
      Path path = new Path(bucket + key);
      long open = System.currentTimeMillis();
      try {
        int kind = random.nextInt(4);
        FSDataInputStream in;
        if (kind == 0) {
          FileStatus status = fs.getFileStatus(path);
          in = FutureIO.awaitFuture(fs.openFile(path).withFileStatus(status).build());
        } else {
          in = fs.open(path);
        }
        try (in) {
          if (kind == 3) {
            readSequentially(key, in, random, open);
          } else {
            readPositioned(key, in, random, open);
          }
        }
      } catch (IOException | RuntimeException e) {
        if (causedByChange(e)) {
          changed.incrementAndGet();
          print("CHANGED " + key + " " + open + " " + System.currentTimeMillis() + " " + oneLine(e));
        } else {
          failed.incrementAndGet();
          StringWriter trace = new StringWriter();
          e.printStackTrace(new PrintWriter(trace));
          StringBuilder out = new StringBuilder("FAIL ").append(key).append(' ').append(oneLine(e));
          for (String line : trace.toString().split("\n")) {
            out.append("\nTRACE ").append(line);
          }
          print(out.toString());
        }
      }
      reads.incrementAndGet();
    }
  }

  private void readPositioned(String key, FSDataInputStream in, Random random, long open) throws IOException {
    int position = random.nextInt(minLength);
    int length = 1 + random.nextInt(Math.min(MAX_POSITIONED, minLength - position));
    byte[] got = new byte[length];
    in.readFully(position, got);
    check(key, position, got, length, false, open);
  }

  private void readSequentially(String key, FSDataInputStream in, Random random, long open) throws IOException {
    int position = random.nextInt(3) == 0 ? 0 : random.nextInt(minLength);
    if (position > 0) {
      in.seek(position);
    }
    int longest = versions.get(key).values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    byte[] got = new byte[longest - position + 1];
    int chunk = 1 << (12 + random.nextInt(8)); // 4 KiB .. 512 KiB
    int at = 0;
    int n;
    while (at < got.length && (n = in.read(got, at, Math.min(chunk, got.length - at))) > 0) {
      at += n;
    }
    if (at == got.length) {
      throw new EOFException("Read more than the longest version (" + longest + " bytes) of " + key + " from position " + position);
    }
    check(key, position, got, at, true, open);
  }

  /** Prints READ with the matching version, or WRONG with the fewest wrong bytes over all versions. */
  private void check(String key, int position, byte[] got, int length, boolean toEnd, long open) {
    long end = System.currentTimeMillis();
    List<Map.Entry<Integer, Integer>> candidates = new ArrayList<>(versions.get(key).entrySet());
    candidates.sort((a, b) -> Integer.compare(b.getKey(), a.getKey()));
    long fewestWrong = Long.MAX_VALUE;
    StringBuilder detail = new StringBuilder();
    for (Map.Entry<Integer, Integer> candidate : candidates) {
      int version = candidate.getKey();
      int versionLength = candidate.getValue();
      boolean lengthFits = toEnd ? versionLength - position == length : versionLength >= position + length;
      byte[] expected = content(key, version, versionLength);
      int comparable = Math.max(0, Math.min(length, versionLength - position));
      if (lengthFits && Arrays.equals(got, 0, length, expected, position, position + length)) {
        bytes.addAndGet(length);
        print("READ " + key + " " + version + " " + open + " " + end + " " + length);
        return;
      }
      long differing = length - comparable;
      int firstDifference = -1;
      for (int i = 0; i < comparable; i++) {
        if (got[i] != expected[position + i]) {
          differing++;
          if (firstDifference < 0) {
            firstDifference = position + i;
          }
        }
      }
      fewestWrong = Math.min(fewestWrong, differing);
      detail.append(" v").append(version).append("(length ").append(versionLength).append(": ").append(differing)
          .append(" wrong, first at ").append(firstDifference).append(')');
    }
    wrong.addAndGet(fewestWrong);
    print("WRONG " + key + " " + fewestWrong + " " + (toEnd ? "sequential" : "positioned") + " read of " + length + " bytes at " + position
        + " opened at " + open + " ended at " + end + ", versions:" + detail);
  }

  private byte[] content(String key, int version, int length) {
    synchronized (contents) {
      byte[] data = contents.get(key + "#" + version);
      if (data == null) {
        data = ChaosContent.bytes(key, version, length);
        contents.put(key + "#" + version, data);
        if (contents.size() > 12) {
          contents.remove(contents.keySet().iterator().next());
        }
      }
      return data;
    }
  }

  private static boolean causedByChange(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (REMOTE_FILE_CHANGED.equals(t.getClass().getName())) {
        return true;
      }
    }
    return false;
  }

  private static String oneLine(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(out.length() == 0 ? "" : " <- ").append(t.toString().replace('\n', ' '));
    }
    return out.toString();
  }

  private static void print(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }
}
